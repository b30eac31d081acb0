#!/usr/bin/perl
# A CGI::Application (Debian's libcgi-application-perl) script with run
# modes: a form, a redirect, an upload, a cookie, a run mode that dies into
# the error mode, headers of its own (t/58_engine_frameworks.t).
package Notes::App;
use strict;
use warnings;
use parent 'CGI::Application';

sub setup {
    my $self = shift;
    $self->start_mode('home');
    $self->mode_param('rm');
    $self->run_modes(home => 'home', form => 'form', go => 'go', upload => 'upload',
                     cookie => 'cookie', fail => 'fail', made => 'made');
    $self->error_mode('oops');
}

sub home {
    my $q = shift->query;
    return '<p>home, x=' . $q->escapeHTML($q->param('x') // 'none') . "</p>\n";
}

sub form {
    my $q = shift->query;
    return 'form: ' . join(',', map { "$_=" . join('|', $q->multi_param($_)) } sort $q->param) . "\n";
}

sub go {
    my $self = shift;
    $self->header_type('redirect');
    $self->header_props(-url => $self->query->url(-absolute => 1) . '?rm=home;x=redirected');
    return '';
}

sub upload {
    my $q = shift->query;
    my $fh = $q->upload('f');
    my $data = $fh ? do { local $/; <$fh> } : '';
    my $info = $fh ? $q->uploadInfo($q->param('f')) : {};
    return sprintf "upload %s %d bytes, %s\n", scalar($q->param('f')) // 'none', length $data,
        $info->{'Content-Type'} // 'no type';
}

sub cookie {
    my $self = shift;
    my $q = $self->query;
    $self->header_add(-cookie => [$q->cookie(-name => 'sess', -value => 'v' . ($q->param('v') // 0),
                                             -path => '/')]);
    return 'seen cookie: ' . ($q->cookie('sess') // 'none') . "\n";
}

sub fail { die "the run mode failed\n" }

sub oops {
    my ($self, $err) = @_;
    $self->header_props(-status => '500 Internal Server Error', -type => 'text/plain');
    return "error mode: $err";
}

sub made {
    my $self = shift;
    $self->header_props(-type => 'text/plain', -charset => 'utf-8', -status => '201 Created',
                        -x_made => 'yes');
    return "created\n";
}

package main;
Notes::App->new->run;
