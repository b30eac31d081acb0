#!/usr/bin/perl
exit 1;
