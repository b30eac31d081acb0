#!/usr/bin/perl
# Does not compile: no output at all, perl exits 255.
use strict;
this is not perl at all (
