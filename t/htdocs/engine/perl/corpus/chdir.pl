#!/usr/bin/perl
use Cwd;
my $start = getcwd();
chdir '/tmp';
print "Content-Type: text/plain\n\nstart_is_script_dir=", ($start =~ m{/corpus\z} ? 1 : 0), " now=", getcwd(), "\n";
