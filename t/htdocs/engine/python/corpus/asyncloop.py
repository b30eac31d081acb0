#!/usr/bin/python3
# The pre-asyncio.run idiom: the thread's event loop, run, then closed. A
# new process gets a loop of its own (on an engine the next run got the
# closed one: "Event loop is closed").
import asyncio, warnings
warnings.simplefilter("ignore", DeprecationWarning)


async def answer():
    await asyncio.sleep(0)
    return "from the loop"

print("Content-Type: text/plain\n")
loop = asyncio.get_event_loop()
print("closed at start %s" % loop.is_closed())
print(loop.run_until_complete(answer()))
loop.close()
