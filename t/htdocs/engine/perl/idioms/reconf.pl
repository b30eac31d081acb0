#!/usr/bin/perl
# Its defaults first, then a configuration file that sets them again (as
# blosxom and its blosxom.conf): each run the file's values, as in each
# CGI process. t/58_engine_idioms.t
use vars qw($title @tags %opt);
$title = 'the default';
@tags = ('default');
%opt = (depth => 0);
require './reconf.conf';
print "Content-Type: text/plain\n\n";
print "title=$title tags=@tags depth=$opt{depth}\n";
$title = 'changed by the run'; # what a run does is not the next run's
require './reconf.conf';        # a second require in one run does nothing
print "after a second require: title=$title\n";
