# A PSGI application built from Debian's Plack (Plack::Builder,
# Plack::Request, Plack::App::File), served persistently by cgiplus-psgi
# (t/16_psgi.t): uploads, chunked bodies, cookies, redirects, static files.
use strict;
use warnings;
use Digest::SHA qw(sha256_hex);
use File::Basename qw(dirname);
use Plack::Builder;
use Plack::Request;
use Plack::App::File;

my $hits = 0;
my $here = dirname(__FILE__);

my $main = sub {
    my $req = Plack::Request->new(shift);
    my $path = $req->path_info;
    my $text = sub { [200, ['Content-Type' => 'text/plain'], [@_]] };
    if ($path eq '/' || $path eq '') {
        $hits++;
        return $text->("psgi hits=$hits pid=$$\n");
    }
    if ($path eq '/upload') {
        my $u = $req->uploads->{file};
        my $data = '';
        if ($u) { open my $fh, '<:raw', $u->path or die; local $/; $data = <$fh> // '' }
        return $text->(sprintf "name=%s size=%d sha256=%s note=%s\n", $u ? $u->filename : '',
                       length $data, sha256_hex($data), $req->body_parameters->{note} // '');
    }
    if ($path eq '/body') {
        my $data = $req->content;
        return $text->(sprintf "size=%d sha256=%s\n", length $data, sha256_hex($data));
    }
    if ($path eq '/login') {
        my $res = $req->new_response(302);
        $res->redirect($req->base . '/whoami');
        $res->cookies->{user} = { value => $req->query_parameters->{user} // 'anon', httponly => 1 };
        return $res->finalize;
    }
    if ($path eq '/whoami') {
        return $text->('user=' . ($req->cookies->{user} // 'none') . "\n");
    }
    if ($path eq '/nonblocking') {
        return $text->("nonblocking=" . ($req->env->{'psgi.nonblocking'} ? 1 : 0) . "\n");
    }
    if ($path eq '/harakiri') {
        # as Plack::Middleware::SizeLimit does past its bound
        my $env = $req->env;
        $env->{'psgix.harakiri.commit'} = 1 if $env->{'psgix.harakiri'};
        return $text->("harakiri=" . ($env->{'psgix.harakiri'} ? 1 : 0) . " pid=$$\n");
    }
    if ($path =~ m{^/status/([0-9]{3})\z}) {
        # a status past RFC 2616's (308, 418, 429, 451): its reason phrase
        return [$1, ['Content-Type' => 'text/plain'], ["status $1\n"]];
    }
    if ($path eq '/seek') {
        # rewinding psgi.input without looking at psgix.input.buffered
        my $in = $req->env->{'psgi.input'};
        $in->read(my $head, 4);
        my $seek = $in->seek(0, 0) ? 1 : 0;
        my $why = $!{ESPIPE} ? 'ESPIPE' : "'$!'";
        my $tell = $in->tell;
        my $rest = '';
        while ($in->read(my $buf, 3)) { $rest .= $buf }
        return $text->("head=$head seek=$seek $why tell=$tell rest=$rest\n");
    }
    if ($path eq '/envleak') {
        # what this worker's earlier requests put in %ENV stays in %ENV (a
        # process's environment), but is no request's variable
        my $env = $req->env;
        my $seen = sprintf "env=%s process=%s pid=%d\n", $env->{PSGI_T_LEAK} // 'none',
                           $ENV{PSGI_T_LEAK} // 'none', $$;
        $ENV{PSGI_T_LEAK} = 'set';
        return $text->($seen);
    }
    if ($path eq '/badheader') {
        # a header made of a request's data, with a line break in it
        my %bad = (lf => "a\nX-Injected: 1", crlf2 => "a\r\n\r\nsmuggled body");
        return [200, ['Content-Type' => 'text/plain', 'X-Echo' => $bad{$req->query_string}],
                ["answered pid=$$\n"]];
    }
    if ($path eq '/child') {
        # A program that reads its stdin, run after the body is read: its
        # end at once, as under Starman (descriptor 0 /dev/null).
        my $env = $req->env;
        my $body = '';
        $env->{'psgi.input'}->read($body, $env->{CONTENT_LENGTH} || 0);
        my $got = `timeout 3 cat; echo " rc=\$?"`;
        chomp $got;
        return $text->("child=[$got] body=[$body] pid=$$\n");
    }
    if ($path eq '/print') {
        # debug output on STDOUT, the application's and a program's it runs
        print "psgi-t debug: before the response\n";
        system('echo psgi-t debug: from a child');
        return sub {
            my $w = shift->([200, ['Content-Type' => 'text/plain']]);
            $w->write("one\n");
            print STDOUT "psgi-t debug: inside the stream\n";
            $w->write("two\n");
            $w->close;
        };
    }
    if ($path eq '/die') {
        die "asked to die\n";
    }
    if ($path eq '/stream') {
        return sub {
            my $w = shift->([200, ['Content-Type' => 'text/plain']]);
            $w->write("part $_\n") for 1 .. 3;
            $w->close;
        };
    }
    return [404, ['Content-Type' => 'text/plain'], ["not found\n"]];
};

builder {
    mount '/files' => Plack::App::File->new(root => "$here/files")->to_app;
    mount '/' => $main;
};
