#!/usr/bin/python3
# A sibling module that installs _ into builtins as it is imported (once
# per engine): each run of the script has it, as each CGI process.
import corpus_i18n
print("Content-Type: text/plain\n\n%s" % _("translated"))
