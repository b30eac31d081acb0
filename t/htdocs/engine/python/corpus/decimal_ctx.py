#!/usr/bin/python3
# The decimal module's context as a new process has it (python3's
# defaults), then changed for this run only: its precision, rounding,
# traps, the flags its arithmetic raises, and the DefaultContext and
# BasicContext templates.
import decimal
from decimal import Decimal
print("Content-Type: text/plain\n")
c = decimal.getcontext()
print("context %r" % c)
print("default %r" % decimal.DefaultContext)
print("basic %r" % decimal.BasicContext)
print("1/7 = %s" % (Decimal(1) / Decimal(7)))
c.prec = 5
c.rounding = decimal.ROUND_DOWN
c.traps[decimal.DivisionByZero] = False
c.traps[decimal.Underflow] = True
print("1/7 = %s, 1/0 = %s" % (Decimal(1) / Decimal(7), Decimal(1) / Decimal(0)))
decimal.DefaultContext.prec = 50
decimal.BasicContext.traps[decimal.Inexact] = True
