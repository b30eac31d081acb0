#!/usr/bin/perl
# A Mojolicious::Lite application (Debian's libmojolicious-perl) as a plain
# CGI script: Mojolicious runs it as CGI when GATEWAY_INTERFACE says so
# (t/58_engine_frameworks.t).
use Mojolicious::Lite -signatures;
use Mojo::Util qw(md5_sum);

get '/' => sub ($c) { $c->render(text => "hello from mojo\n") };
get '/pid' => sub ($c) { $c->render(text => "pid=$$\n") };
get '/hello/:name' => sub ($c) { $c->render(text => 'Hello ' . $c->param('name') . "\n") };
get '/json' => sub ($c) { $c->render(json => {q => $c->param('q'), path => $c->req->url->path->to_string}) };
post '/form' => sub ($c) {
    $c->render(text => join(',', map { "$_=" . join('|', @{$c->every_param($_)}) }
                                 sort @{$c->req->params->names}) . "\n");
};
post '/upload' => sub ($c) {
    my $u = $c->req->upload('f');
    $c->render(text => sprintf("%s %d bytes md5 %s\n", $u->filename, $u->size, md5_sum($u->slurp)));
};
get '/login' => sub ($c) { $c->session(user => $c->param('u')); $c->redirect_to('whoami') };
get '/whoami' => sub ($c) { $c->render(text => 'user=' . ($c->session('user') // 'none') . "\n") };
get '/away' => sub ($c) { $c->redirect_to('https://example.org/elsewhere?x=1') };
get '/stream' => sub ($c) {
    $c->res->headers->content_type('text/plain');
    my $n = 0;
    my $more;
    $more = sub ($c, @) { return $c->finish if $n >= 3; $c->write('line ' . $n++ . "\n" => $more) };
    $c->$more;
};
get '/teapot' => sub ($c) { $c->render(text => "short and stout\n", status => 418) };
get '/cookie' => sub ($c) {
    $c->cookie(flavour => 'oat', {path => '/'});
    $c->res->headers->header('X-Seen' => $c->cookie('flavour') // 'none');
    $c->render(text => "cookie\n");
};
get '/die' => sub ($c) { die "intentional failure\n" };
app->secrets(['a fixed test secret']);
app->mode('production');
app->log->level('fatal');
app->start;
