# found through the sys.path entry siblings/two/addlib.py adds
WHERE = "libtwo"
