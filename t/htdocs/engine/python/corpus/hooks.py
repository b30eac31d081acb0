#!/usr/bin/python3
# Interpreter-wide hooks and settings a script sets for itself: a new
# process has python3's own.
import faulthandler, gc, sys, threading, tracemalloc


class Finder:
    @staticmethod
    def find_spec(*a):
        return None


def state():
    return ("unraisablehook default %s, breakpointhook default %s, threading.excepthook default %s\n"
            "meta_path %d path_hooks %d, gc debug %d callbacks %d, thread stack size %d\n"
            "faulthandler %s, tracemalloc %s, asyncgen hooks %s, coroutine tracking %d, dlopenflags %d"
            % (sys.unraisablehook is sys.__unraisablehook__, sys.breakpointhook is sys.__breakpointhook__,
               threading.excepthook is threading.__excepthook__, len(sys.meta_path), len(sys.path_hooks),
               gc.get_debug(), len(gc.callbacks), threading.stack_size(), faulthandler.is_enabled(),
               tracemalloc.is_tracing(), tuple(sys.get_asyncgen_hooks()) != (None, None),
               sys.get_coroutine_origin_tracking_depth(), sys.getdlopenflags()))


print("Content-Type: text/plain\n")
print(state())
sys.unraisablehook = lambda u: None
sys.breakpointhook = lambda *a, **k: None
threading.excepthook = lambda a: None
sys.meta_path.insert(0, Finder)
sys.path_hooks.append(lambda p: (_ for _ in ()).throw(ImportError()))
gc.set_debug(gc.DEBUG_UNCOLLECTABLE)
gc.callbacks.append(lambda phase, info: None)
threading.stack_size(512 * 1024)
faulthandler.enable()
faulthandler.dump_traceback_later(3600)
tracemalloc.start()
sys.set_asyncgen_hooks(firstiter=lambda g: None)
sys.set_coroutine_origin_tracking_depth(5)
sys.setdlopenflags(sys.getdlopenflags() | 0x100)
