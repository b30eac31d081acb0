#!/usr/bin/python3
# logging.captureWarnings(True): warnings go to the "py.warnings" logger,
# here into the page through basicConfig's handler.
import logging, sys, warnings
print("Content-Type: text/plain\n")
sys.stdout.flush()
logging.basicConfig(stream=sys.stdout, format="log %(name)s: %(message)s")
logging.captureWarnings(True)
warnings.warn("corpus-captured-warning")
logging.warning("after the warning")
