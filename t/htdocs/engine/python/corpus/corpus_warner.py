"""warn_once.py's module: a warning from a module's code, which python3's
default filters show once per process and place (its __warningregistry__)."""
import warnings


def old_api():
    warnings.warn("corpus-module-warning: old_api is deprecated", UserWarning, stacklevel=1)
    return "called"
