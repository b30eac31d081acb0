#!/usr/bin/perl
# Variables of a package the script declares, and of main (`package main;`,
# `$main::x`, `$::x`): under CGI each run starts with them as the file's
# compile left them (t/58_engine_idioms.t). A variable a module exports
# into main (FindBin's $Bin) stays the module's.
package Helper;
our (%cache, @list, $last);
our $mode = 'compiled';
BEGIN { our @begin = ('b1') }
sub add { $cache{$_[0]}++; push @list, $_[0]; $last = $_[0] }
{ package Helper::Inner; our $n; sub bump { ++$n } }

package main;
use FindBin qw($Bin);
our ($hits, %seen);
BEGIN { $main::start = 'begin' }
$hits++;
$::count += 2;
$seen{$hits}++;
$main::start .= '+run';
Helper::add('a');
Helper::add('b');
push @Helper::begin, 'b2';
$Helper::mode .= '+run';
Helper::Inner::bump();
print "Content-Type: text/plain\n\n";
print "hits=$hits count=$::count seen=", join(',', sort keys %seen), " start=$main::start\n";
print 'cache=', join(',', map { "$_:$Helper::cache{$_}" } sort keys %Helper::cache),
      " list=@Helper::list last=$Helper::last mode=$Helper::mode begin=@Helper::begin inner=$Helper::Inner::n\n";
print 'bin=', ($Bin =~ m{/idioms\z} ? 'ok' : $Bin), "\n";
