# Debian's Nagios 4 CGIs (nagios4-cgi: C programs), unmodified, in two
# virtual hosts of one private httpd, one with mod_cgid, one with
# CGIplusCompat (plain CGI through the runner), as Debian's apache2.conf
# serves them (ScriptAlias /cgi-bin/nagios4), behind Basic auth, the
# REMOTE_USER nagios's own authorization reads (use_authentication=1):
# status, extinfo, tac, config, the JSON CGIs, showlog, history,
# notifications, summary, cmd.cgi's form and its POSTs (CSRF cookie and
# form id) as the administrator and as a user allowed nothing. Each the same
# status, headers (but the date, Server, the framing and the clock's) and
# body, and cmd.cgi writes the same external commands to each side's
# command file. Private files made here: cgi.cfg (NAGIOS_CGI_CONFIG, by
# SetEnv), nagios.cfg, the object cache, status.dat, nagios.log. (C
# binaries: only CGIplusCompat's plain CGI applies to them; CGIplusMode
# cgiplus needs the CGIplus loop, the engines run Perl, Python or PHP, and
# FastCGI workers need a FastCGI program.)
use strict;
use warnings FATAL => 'all';
use Apache::Test;
use Apache::TestUtil;
use POSIX qw(strftime);
use Digest::SHA qw(sha1_base64);
use lib 't/lib', 't/htdocs/apps';
use PrivateHttpd qw(private_start private_stop fresh_dir);
use FreePort qw(free_ports);
use AppTest qw(write_file curl);
use SideBySide qw(same_answer pool_of cgid_pair_conf);

my $cgidir = '/usr/lib/cgi-bin/nagios4';
# [page under /cgi-bin/nagios4/, user, curl arguments]
my @pages = (
    ['status.cgi?host=all'],
    ['status.cgi?hostgroup=all&style=overview'],
    ['status.cgi?hostgroup=all&style=summary'],
    ['status.cgi?hostgroup=all&style=grid'],
    ['status.cgi?host=all&servicestatustypes=16'],
    ['status.cgi?navbarsearch=1&host=web1'],
    ['status.cgi?host=nosuch'],
    ['status.cgi?host=all', 'guest'],
    ['extinfo.cgi?type=0'],
    ['extinfo.cgi?type=1&host=web1'],
    ['extinfo.cgi?type=2&host=web1&service=HTTP'],
    ['extinfo.cgi?type=2&host=web1&service=NOSUCH'],
    ['extinfo.cgi?type=3'],
    ['extinfo.cgi?type=4'],
    ['extinfo.cgi?type=5&hostgroup=web-servers'],
    ['extinfo.cgi?type=6'],
    ['extinfo.cgi?type=7'],
    ['extinfo.cgi?type=0', 'guest'],
    ['tac.cgi'],
    ['statusjson.cgi?query=hostcount'],
    ['config.cgi'],
    ['config.cgi?type=hosts'],
    ['config.cgi?type=services&expand=web1'],
    ['config.cgi?type=contacts'],
    ['config.cgi?type=commands'],
    ['config.cgi?type=timeperiods'],
    ['config.cgi?type=hosts', 'guest'],
    ['statusjson.cgi?query=hostlist'],
    ['statusjson.cgi?query=service&hostname=web1&servicedescription=HTTP'],
    ['statusjson.cgi?query=programstatus'],
    ['objectjson.cgi?query=hostlist&details=true'],
    ['objectjson.cgi?query=nosuchquery'],
    ['showlog.cgi'],
    ['history.cgi?host=all'],
    ['notifications.cgi?host=all'],
    ['summary.cgi'],
    ['outages.cgi'],
    ['status.cgi?host=all', 'nagiosadmin', '-I'],
    ['status.cgi?host=all', ''],            # no credentials: httpd's 401
    # cmd.cgi: its form sets the CSRF cookie; a POST with the cookie and
    # the form's id writes the command; one whose id is not the cookie's is
    # refused; the guest may not submit at all
    ['cmd.cgi?cmd_typ=7&host=web1&service=HTTP'],
    ['cmd.cgi (POST)'],
    ['cmd.cgi (POST, another form id)'],
    ['cmd.cgi (POST)', 'guest'],
    ['cmd.cgi?cmd_typ=34&host=web1&service=HTTP'],
    ['cmd.cgi (POST comment)'],
);
plan tests => 5 * @pages + 4,
    need { 'needs the Nagios 4 CGIs (Debian package nagios4-cgi)' => -x "$cgidir/status.cgi" };

my $vars = Apache::Test::config()->{vars};
my $dir = "$vars->{t_logs}/nagios";
my ($cport, $pport) = free_ports(2);
my %port = (ref => $cport, ours => $pport);
fresh_dir($dir);

# ---- nagios's files: what a running nagios leaves for its CGIs, with
# fixed times (2023-11-14), the state of two hosts and their services
my $t0 = 1700000000;
my %host = (localhost => [0, 'PING OK - Packet loss = 0%, RTA = 0.05 ms'],
            web1 => [1, 'CRITICAL - Host Unreachable (192.0.2.10)']);
my %svc = ('localhost;PING' => [0, 'PING OK - Packet loss = 0%, RTA = 0.04 ms', 'rta=0.04ms;3000;5000;0'],
           'web1;HTTP' => [2, 'connect to address 192.0.2.10 and port 80: No route to host', '']);
my $objects = <<'OBJ';
define timeperiod {
	timeperiod_name	24x7
	alias	24 Hours A Day, 7 Days A Week
	sunday	00:00-24:00
	monday	00:00-24:00
	tuesday	00:00-24:00
	wednesday	00:00-24:00
	thursday	00:00-24:00
	friday	00:00-24:00
	saturday	00:00-24:00
	}

define command {
	command_name	check-host-alive
	command_line	/usr/lib/nagios/plugins/check_ping -H $HOSTADDRESS$ -w 3000.0,80% -c 5000.0,100% -p 5
	}

define command {
	command_name	check_http
	command_line	/usr/lib/nagios/plugins/check_http -I $HOSTADDRESS$
	}

define command {
	command_name	notify-by-email
	command_line	/usr/bin/printf "%b" "$NOTIFICATIONTYPE$ $HOSTNAME$" | /usr/bin/mail $CONTACTEMAIL$
	}

define contactgroup {
	contactgroup_name	admins
	alias	Nagios Administrators
	members	nagiosadmin
	}

define hostgroup {
	hostgroup_name	web-servers
	alias	Web Servers & <friends>
	members	web1,localhost
	}

define contact {
	contact_name	nagiosadmin
	alias	Nagios Admin
	host_notification_period	24x7
	service_notification_period	24x7
	host_notification_options	d,u,r,f,s
	service_notification_options	w,u,c,r,f,s
	host_notification_commands	notify-by-email
	service_notification_commands	notify-by-email
	email	nagios@localhost
	host_notifications_enabled	1
	service_notifications_enabled	1
	can_submit_commands	1
	retain_status_information	1
	retain_nonstatus_information	1
	}
OBJ
my $common = join '', map { "\t$_\n" } split /\n/, <<'COMMON';
check_period	24x7
contact_groups	admins
notification_period	24x7
initial_state	o
check_interval	5.000000
retry_interval	1.000000
active_checks_enabled	1
passive_checks_enabled	1
obsess	1
event_handler_enabled	1
low_flap_threshold	0.000000
high_flap_threshold	0.000000
flap_detection_enabled	1
flap_detection_options	a
freshness_threshold	0
check_freshness	0
notifications_enabled	1
first_notification_delay	0.000000
stalking_options	n
process_perf_data	1
retain_status_information	1
retain_nonstatus_information	1
COMMON
$objects .= "\ndefine host {\n\thost_name\tlocalhost\n\talias\tlocalhost\n\taddress\t127.0.0.1\n"
          . "\tcheck_command\tcheck-host-alive\n\tmax_check_attempts\t10\n\tnotification_options\td,u,r,f,s\n"
          . "\tnotification_interval\t120.000000\n\tnotes\tthe monitoring host itself\n$common\t}\n";
$objects .= "\ndefine host {\n\thost_name\tweb1\n\talias\tWeb server <one>\n\taddress\t192.0.2.10\n"
          . "\tparents\tlocalhost\n\tcheck_command\tcheck-host-alive\n\tmax_check_attempts\t10\n"
          . "\tnotification_options\td,u,r,f,s\n\tnotification_interval\t120.000000\n$common\t}\n";
for my $s (sort keys %svc) {
    my ($h, $d) = split /;/, $s;
    $objects .= "\ndefine service {\n\thost_name\t$h\n\tservice_description\t$d\n"
              . "\tcheck_command\t" . ($d eq 'HTTP' ? 'check_http' : 'check-host-alive') . "\n"
              . "\tmax_check_attempts\t4\n\tis_volatile\t0\n\tparallelize_check\t1\n"
              . "\tnotification_options\tw,u,c,r,f,s\n\tnotification_interval\t60.000000\n$common\t}\n";
}
write_file("$dir/objects.cache", $objects, 0644);

my $status = "info {\n\tcreated=$t0\n\tversion=4.4.6\n\tlast_update_check=0\n\tupdate_available=0\n\t}\n\n"
    . "programstatus {\n\tmodified_host_attributes=0\n\tmodified_service_attributes=0\n\tnagios_pid=4242\n"
    . "\tdaemon_mode=1\n\tprogram_start=" . ($t0 - 86400) . "\n\tlast_log_rotation=0\n"
    . join('', map { "\t$_=1\n" } qw(enable_notifications active_service_checks_enabled passive_service_checks_enabled
                                    active_host_checks_enabled passive_host_checks_enabled enable_event_handlers
                                    obsess_over_services obsess_over_hosts check_service_freshness
                                    check_host_freshness enable_flap_detection process_performance_data))
    . "\tglobal_host_event_handler=\n\tglobal_service_event_handler=\n\tnext_comment_id=2\n"
    . "\tnext_downtime_id=2\n\tnext_event_id=9\n\tnext_problem_id=3\n\tnext_notification_id=4\n"
    . join('', map { "\t${_}_stats=3,9,27\n" } qw(active_scheduled_host_check active_ondemand_host_check
                                                  passive_host_check active_scheduled_service_check
                                                  active_ondemand_service_check passive_service_check
                                                  cached_host_check cached_service_check external_command
                                                  parallel_host_check serial_host_check))
    . "\t}\n\n";
my $state = sub {
    my ($code, $out, $perf, $last) = @_;
    return "\tmodified_attributes=0\n\tcheck_period=24x7\n\tnotification_period=24x7\n"
        . "\tcheck_interval=5.000000\n\tretry_interval=1.000000\n\tevent_handler=\n\thas_been_checked=1\n"
        . "\tshould_be_scheduled=1\n\tcheck_execution_time=0.012\n\tcheck_latency=0.003\n\tcheck_type=0\n"
        . "\tcurrent_state=$code\n\tlast_hard_state=$code\n\tlast_event_id=0\n\tcurrent_event_id=" . ($code ? 5 : 0) . "\n"
        . "\tcurrent_problem_id=" . ($code ? 2 : 0) . "\n\tlast_problem_id=0\n\tplugin_output=$out\n"
        . "\tlong_plugin_output=\n\tperformance_data=$perf\n\tlast_check=" . ($t0 - 60) . "\n"
        . "\tnext_check=" . ($t0 + 240) . "\n\tcheck_options=0\n\tcurrent_attempt=" . ($code ? 4 : 1) . "\n"
        . "\tstate_type=1\n\tlast_state_change=" . ($t0 - 3600) . "\n\tlast_hard_state_change=" . ($t0 - 3600) . "\n"
        . $last
        . "\tlast_notification=0\n\tnext_notification=0\n\tno_more_notifications=0\n"
        . "\tcurrent_notification_number=0\n\tcurrent_notification_id=0\n\tnotifications_enabled=1\n"
        . "\tproblem_has_been_acknowledged=0\n\tacknowledgement_type=0\n\tactive_checks_enabled=1\n"
        . "\tpassive_checks_enabled=1\n\tevent_handler_enabled=1\n\tflap_detection_enabled=1\n"
        . "\tprocess_performance_data=1\n\tobsess=1\n\tlast_update=$t0\n\tis_flapping=0\n"
        . "\tpercent_state_change=0.00\n\tscheduled_downtime_depth=0\n";
};
for my $h (sort keys %host) {
    my ($code, $out) = @{ $host{$h} };
    $status .= "hoststatus {\n\thost_name=$h\n\tcheck_command=check-host-alive\n\tmax_attempts=10\n"
             . $state->($code, $out, '', "\tlast_time_up=" . ($code ? $t0 - 3600 : $t0 - 60)
                        . "\n\tlast_time_down=0\n\tlast_time_unreachable=" . ($code ? $t0 - 60 : 0) . "\n")
             . "\t}\n\n";
}
for my $s (sort keys %svc) {
    my ($h, $d) = split /;/, $s;
    my ($code, $out, $perf) = @{ $svc{$s} };
    $status .= "servicestatus {\n\thost_name=$h\n\tservice_description=$d\n"
             . "\tcheck_command=" . ($d eq 'HTTP' ? 'check_http' : 'check-host-alive') . "\n\tmax_attempts=4\n"
             . $state->($code, $out, $perf, "\tlast_time_ok=" . ($code ? $t0 - 3600 : $t0 - 60)
                        . "\n\tlast_time_warning=0\n\tlast_time_unknown=0\n\tlast_time_critical="
                        . ($code ? $t0 - 60 : 0) . "\n")
             . "\t}\n\n";
}
$status .= "contactstatus {\n\tcontact_name=nagiosadmin\n\tmodified_attributes=0\n\tmodified_host_attributes=0\n"
         . "\tmodified_service_attributes=0\n\thost_notification_period=24x7\n\tservice_notification_period=24x7\n"
         . "\tlast_host_notification=0\n\tlast_service_notification=0\n\thost_notifications_enabled=1\n"
         . "\tservice_notifications_enabled=1\n\t}\n\n"
         . "servicecomment {\n\thost_name=web1\n\tservice_description=HTTP\n\tentry_type=1\n\tcomment_id=1\n"
         . "\tsource=1\n\tpersistent=1\n\tentry_time=" . ($t0 - 1800) . "\n\texpires=0\n\texpire_time=0\n"
         . "\tauthor=Ann Admin\n\tcomment_data=cable <unplugged> & waiting\n\t}\n\n"
         . "hostdowntime {\n\thost_name=localhost\n\tdowntime_id=1\n\tcomment_id=0\n\tentry_time=" . ($t0 - 600) . "\n"
         . "\tstart_time=" . ($t0 + 86400 * 400) . "\n\tflex_downtime_start=0\n\tend_time=" . ($t0 + 86400 * 401) . "\n"
         . "\ttriggered_by=0\n\tfixed=1\n\tduration=86400\n\tis_in_effect=0\n\tstart_notification_sent=0\n"
         . "\tauthor=Ann Admin\n\tcomment=maintenance\n\t}\n\n";
write_file("$dir/status.dat", $status, 0644);
write_file("$dir/nagios.log", join('', map { "[" . ($t0 - 3600 + $_->[0]) . "] $_->[1]\n" } (
    [0, 'Nagios 4.4.6 starting... (PID=4242)'],
    [1, 'HOST ALERT: web1;DOWN;HARD;10;CRITICAL - Host Unreachable (192.0.2.10)'],
    [2, 'SERVICE ALERT: web1;HTTP;CRITICAL;HARD;4;connect to address 192.0.2.10 and port 80: No route to host'],
    [3, 'HOST NOTIFICATION: nagiosadmin;web1;DOWN;notify-by-email;CRITICAL - Host Unreachable (192.0.2.10)'],
    [4, 'SERVICE NOTIFICATION: nagiosadmin;web1;HTTP;CRITICAL;notify-by-email;connect to address 192.0.2.10'],
    [5, 'EXTERNAL COMMAND: ACKNOWLEDGE_HOST_PROBLEM;web1;1;1;1;Ann Admin;on it'],
    [6, 'SERVICE ALERT: localhost;PING;OK;HARD;1;PING OK - Packet loss = 0%, RTA = 0.05 ms'],
)), 0644);
# A nagios.cfg and cgi.cfg a side: each writes commands to its own file.
for my $side (qw(ref ours)) {
    mkdir "$dir/$side";
    write_file("$dir/$side/nagios.cfg", "log_file=$dir/nagios.log\nobject_cache_file=$dir/objects.cache\n"
               . "status_file=$dir/status.dat\ncommand_file=$dir/$side/nagios.cmd\ncheck_external_commands=1\n"
               . "date_format=iso8601\nlog_archive_path=$dir/archives\ninterval_length=60\n", 0644);
    write_file("$dir/$side/cgi.cfg", "main_config_file=$dir/$side/nagios.cfg\n"
               . "physical_html_path=/usr/share/nagios4/htdocs\nurl_html_path=/nagios4\nuse_authentication=1\n"
               . join('', map { "authorized_for_$_=nagiosadmin\n" }
                          qw(system_information configuration_information system_commands all_services
                             all_hosts all_service_commands all_host_commands))
               . "refresh_rate=90\nresult_limit=100\nescape_html_tags=1\nlock_author_names=1\n", 0644);
    # cmd.cgi writes to the command file it can stat (nagios's pipe)
    write_file("$dir/$side/nagios.cmd", '', 0666);
}
mkdir "$dir/archives";
write_file("$dir/htpasswd", join('', map { "$_:{SHA}" . sha1_base64('secret') . "=\n" } qw(nagiosadmin guest)), 0644);

sub vhost {
    my ($side) = @_;
    return <<"CONF";
    SetEnv NAGIOS_CGI_CONFIG $dir/$side/cgi.cfg
    ScriptAlias /cgi-bin/nagios4 $cgidir
    <Location /cgi-bin/nagios4>
        AuthType Basic
        AuthName Nagios4
        AuthUserFile $dir/htpasswd
        Require valid-user
    </Location>
CONF
}
write_file("$dir/httpd.conf", cgid_pair_conf($dir, \%port, mods => [qw(env auth_basic authn_core authn_file authz_user)],
                                              grant => [$cgidir], compat => ['/cgi-bin/nagios4'], vhost => \&vhost), 0644);
ok t_cmp(private_start("$dir/httpd.conf", $cport), 1, 'httpd with mod_cgid and the drop-in, the Nagios CGIs in both');

# What differs between two servers or two moments: the port; each side's
# own files ($dir/ref, $dir/ours); the clock (the CGIs print "now" and
# durations up to now; the fixtures' times are fixed and stay); cmd.cgi's
# CSRF id (random each form).
my @today = map { strftime('%Y-%m-%d', localtime(time + $_)) } 0, 60;
sub norm {
    my ($b, $port) = @_;
    $b =~ s/127\.0\.0\.1:$port/127.0.0.1:PORT/g;
    $b =~ s{\Q$dir\E/(?:ref|ours)/}{$dir/SIDE/}g;
    $b =~ s/\b(?:\Q$today[0]\E|\Q$today[1]\E)[ T]\d\d:\d\d:\d\d/NOW/g;
    $b =~ s/\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) \w{3} +\d+ \d\d:\d\d:\d\d \w+ \d{4}/NOW/g;
    # (summary.cgi's custom report period: from the first of this month
    # to today, which a midnight between the sides moves)
    $b =~ s/(name='[se](?:day|year)' value=')\d+'/$1N'/g;
    $b =~ s{(<select name='[se]mon'>.*?</select>)}{my $m = $1; $m =~ s/ SELECTED>/>/r}gse;
    $b =~ s/\b\d+d +\d+h +\d+m +\d+s\b/DURATION/g;
    # (the JSON CGIs: the time of the query, in ms)
    $b =~ s/"(query_time|last_data_update|current_time)": ?\d+/"$1": TIME/g;
    # (the log navigation's "File:" is the log's path or its base name at
    # random, 1 run in 60 or so, under mod_cgid too: nagios 4.4.6's
    # display_nav_table() looks for the '/' in the bytes of a pointer, whose
    # value ASLR picks)
    $b =~ s{(<DIV CLASS='navBoxFile'>File: )[^<]*/}{$1}g;
    $b =~ s/\b(nagFormId|NagFormId)(['"]? ?(?:VALUE=|=)['"]?)\w+/$1$2ID/gi;
    return $b;
}
# The headers that matter: all but the date, Server, the framing; the
# clock's in Last-Modified; the CSRF cookie's value.
sub heads {
    my ($h) = @_;
    my @k = grep { !/^(date|server|content-length|transfer-encoding|connection|keep-alive)$/ } keys %$h;
    # Nagios dates both from the clock of the request (its document_header:
    # Last-Modified and Expires now): the two sides' may differ by a second
    return join "\n", map { "$_: " . (/^(last-modified|expires)$/ ? 'TIME' : norm($h->{$_}, 0)) } sort @k;
}

my (%formid, %cmdfile);
my $n = 0;
for my $page (@pages) {
    $n++;
    my ($path, $user, @args) = @$page;
    $user //= 'nagiosadmin';
    my %r;
    for my $side (qw(ref ours)) {
        my @a = @args;
        push @a, '-u', "$user:secret" if $user ne '';
        my $url = "http://127.0.0.1:$port{$side}/cgi-bin/nagios4/$path";
        if ($path =~ /^cmd\.cgi \((POST.*)\)$/) {
            my $kind = $1;
            my $fields = $kind =~ /comment/
                ? 'cmd_typ=3&cmd_mod=2&host=web1&service=HTTP&com_author=nagiosadmin&com_data=checked+%3Cby+hand%3E&persistent=on'
                : 'cmd_typ=7&cmd_mod=2&host=web1&service=HTTP&start_time=2030-01-01+00%3A00%3A00&force_check=on';
            $fields .= '&nagFormId=' . ($kind =~ /another/ ? '0123456789abcdef' : $formid{$side} // '');
            push @a, '--data', $fields, '-H', 'Cookie: NagFormId=' . ($formid{$side} // '');
            $url = "http://127.0.0.1:$port{$side}/cgi-bin/nagios4/cmd.cgi";
        }
        my ($code, $h, $body) = curl(@a, $url);
        $body = '' if grep { $_ eq '-I' } @args;
        ($formid{$side}) = ($h->{'set-cookie'} // '') =~ /NagFormId=(\w+)/ if $h->{'set-cookie'};
        write_file("$dir/$side/body-$n", $body, 0644);    # for a failing run's reader
        # (cmd.cgi opens the file for writing: each command replaces the last)
        $cmdfile{$side} .= do { local (@ARGV, $/) = "$dir/$side/nagios.cmd"; <> };
        truncate "$dir/$side/nagios.cmd", 0;
        $r{$side} = { code => $code, type => $h->{'content-type'} // '', loc => $h->{location} // '',
                      body => $body, nbody => norm($body, $port{$side}), h => $h };
    }
    my $what = "$path" . ($user ne 'nagiosadmin' ? " ($user)" : '') . (@args ? " @args" : '');
    same_answer($what, 'mod_cgiplus', $r{ours}, $r{ref}, 'mod_cgid');
    ok t_cmp(heads($r{ours}{h}), heads($r{ref}{h}), "$what: the same other headers");
}

# The commands each side's cmd.cgi wrote: "[now] COMMAND;args" (the
# submission's time is the clock's).
s/^\[\d+\] /[NOW] /mg for values %cmdfile;
# (lock_author_names: the contact's alias, not the form's author; cmd.cgi
# strips the comment's markup)
ok t_cmp($cmdfile{ours}, "[NOW] SCHEDULE_FORCED_SVC_CHECK;web1;HTTP;1893456000\n"
         . "[NOW] ADD_SVC_COMMENT;web1;HTTP;1;Nagios Admin;checked by hand\n",
         "the drop-in's cmd.cgi wrote the two accepted POSTs' commands");
ok t_cmp($cmdfile{ours}, $cmdfile{ref}, "the same command as mod_cgid's cmd.cgi wrote");
my $pool = pool_of("http://127.0.0.1:$pport/status", "$cgidir/status.cgi");
ok t_cmp($pool ? "$pool->{mode} " . ($pool->{counters}{requests} >= 8 ? 'all' : $pool->{counters}{requests}) : 'no pool',
         'cgi all', "the drop-in's status.cgi requests ran through the runner, as plain CGI");
private_stop("$dir/httpd.pid");
