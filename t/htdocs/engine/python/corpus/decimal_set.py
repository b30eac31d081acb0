#!/usr/bin/python3
# A context of its own (decimal.setcontext), left for good.
import decimal
print("Content-Type: text/plain\n")
print("context %r" % decimal.getcontext())
decimal.setcontext(decimal.Context(prec=3, rounding=decimal.ROUND_CEILING, capitals=0))
print("1/3 = %s" % (decimal.Decimal(1) / 3))
