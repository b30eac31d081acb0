# beside one/usemain.py: reads the script's globals through __main__, bound
# as it loads (a CGI process has one __main__, the script's own)
import __main__
import __main__ as script


def title():
    return "%s, %s" % (getattr(__main__, "TITLE", "no TITLE"),
                       getattr(script, "TITLE", "no TITLE"))


def where():
    import os
    return os.path.basename(__main__.__file__)
