VALUE = "sibling v1"
hits = 0
