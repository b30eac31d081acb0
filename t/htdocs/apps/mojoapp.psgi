# A Mojolicious::Lite application (Debian's libmojolicious-perl) served
# persistently by cgiplus-psgi (t/16_psgi.t): uploads, a chunked body,
# cookies, redirects. Under Plack, app->start returns the PSGI application.
use Mojolicious::Lite -signatures;
use Digest::SHA qw(sha256_hex);

my $hits = 0;
get '/' => sub ($c) { $hits++; $c->render(text => "mojo hits=$hits pid=$$\n", format => 'txt') };
get '/where' => sub ($c) { $c->render(text => "$INC{'Mojolicious.pm'}\n", format => 'txt') };
post '/upload' => sub ($c) {
    my $f = $c->req->upload('file');
    my $data = $f ? $f->slurp : '';
    $c->render(text => sprintf("name=%s size=%d sha256=%s note=%s\n", $f ? $f->filename : '',
                               length $data, sha256_hex($data), $c->param('note') // ''), format => 'txt');
};
post '/body' => sub ($c) {
    my $data = $c->req->body;
    $c->render(text => sprintf("size=%d sha256=%s\n", length $data, sha256_hex($data)), format => 'txt');
};
get '/login' => sub ($c) {
    $c->cookie(user => $c->param('user') // 'anon', { httponly => 1, path => '/' });
    $c->redirect_to('whoami');
};
get '/whoami' => sub ($c) { $c->render(text => 'user=' . ($c->cookie('user') // '') . "\n", format => 'txt') };
app->start;
