#!/usr/bin/perl
# An unmodified CGI.pm form script: fields and a file upload, by GET or
# POST (t/58_engine_perl.t runs it under the Perl engine and under mod_cgid).
use strict;
use warnings;
use CGI;
use Digest::MD5 qw(md5_hex);

my $q = CGI->new;
print $q->header(-type => 'text/plain', -charset => 'utf-8');
print "method=", $q->request_method, "\n";
for my $name (sort $q->param) {
    next if $name eq 'file';
    print "param $name=", join(',', $q->multi_param($name)), "\n";
}
if (my $fh = $q->upload('file')) {
    binmode $fh;
    local $/;
    my $data = <$fh> // '';
    print "file name=", scalar $q->param('file'), " size=", length($data), " md5=", md5_hex($data), "\n";
    print "file type=", $q->uploadInfo(scalar $q->param('file'))->{'Content-Type'}, "\n";
}
print "url=", $q->url(-absolute => 1), "\n";
