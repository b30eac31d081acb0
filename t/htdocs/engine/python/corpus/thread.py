#!/usr/bin/python3
# A (non-daemon) thread still working when the script's code ends: the
# interpreter waits for it at exit, so what it prints is in the response.
import threading, time
def work():
    time.sleep(0.3)
    print("from the thread")
print("Content-Type: text/plain\n\nmain done")
threading.Thread(target=work).start()
