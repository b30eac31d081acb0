# beside two/shadow.py, it hides the standard library's colorsys there
WHO = "two's colorsys"
