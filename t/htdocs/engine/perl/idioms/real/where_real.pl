#!/usr/bin/perl
# Reached through idioms/where.pl, a symbolic link: perl and mod_cgi take
# the path as httpd named it for $0, __FILE__ and the working directory;
# FindBin's RealBin is the file's own directory. t/58_engine_idioms.t.
use strict;
use warnings;
use Cwd ();
use FindBin;
use File::Basename qw(dirname);
print "Content-Type: text/plain\n\n";
my $root = $ENV{DOCUMENT_ROOT};
for my $v (['$0', $0], ['__FILE__', __FILE__], ['cwd', Cwd::getcwd()], ['Bin', $FindBin::Bin],
           ['RealBin', $FindBin::RealBin]) {
    (my $s = $v->[1]) =~ s/^\Q$root\E/ROOT/;
    print "$v->[0] $s\n";
}
print "beside the link: ", (-e dirname($0) . '/where.conf' ? 'found' : 'none'), "\n";
