NAME = "sibling"
