"""log_module.py's module: a library's NullHandler, added as it is imported."""
import logging
logging.getLogger("corpus.logmod").addHandler(logging.NullHandler())
