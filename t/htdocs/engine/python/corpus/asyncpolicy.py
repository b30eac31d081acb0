#!/usr/bin/python3
# An event loop set for the thread and left open, with a policy of the
# script's own: a new process has neither.
import asyncio


class Policy(asyncio.DefaultEventLoopPolicy):
    pass

print("Content-Type: text/plain\n")
print("policy default %s" % (type(asyncio.get_event_loop_policy()) is asyncio.DefaultEventLoopPolicy))
asyncio.set_event_loop_policy(Policy())
asyncio.set_event_loop(asyncio.new_event_loop())
