import gettext
gettext.install("corpus")       # _ for every module, as it is imported
