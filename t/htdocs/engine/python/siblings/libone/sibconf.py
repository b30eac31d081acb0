# found through the sys.path entry siblings/one/addlib.py adds
WHERE = "libone"
