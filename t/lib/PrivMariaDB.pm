package PrivMariaDB;
# A private MariaDB for the tests of database-backed applications: a
# datadir of its own made by mariadb-install-db in the test's directory,
# a UNIX socket there and no network (--skip-networking), started by
# fork/exec and stopped by its pid (by mariadb_stop, or at exit). As root
# it runs as the test's httpd user: mariadbd refuses root.
use strict;
use warnings;
use Apache::Test ();
use POSIX ();
use Time::HiRes qw(sleep);
use Exporter 'import';
our @EXPORT_OK = qw(mariadbd_bin mariadb_start mariadb_sql mariadb_query mariadb_stop);

my $vars = Apache::Test::config()->{vars};

# The server's binary (Debian's mariadb-server), undef without one.
sub mariadbd_bin { return (grep { -x } '/usr/sbin/mariadbd', '/usr/sbin/mysqld')[0] }

# Started here, by this process: stopped at exit (not by a forked child's).
my %started;
END {
    local $?;    # the test's exit status, not waitpid's
    mariadb_stop($_) for values %started;
}

# A server in $dir/mysql: {pid, sock, dir}; sock is there once it
# listens (up to 10 s). Dies if the datadir cannot be made.
sub mariadb_start {
    my ($dir) = @_;
    my $my = "$dir/mysql";
    mkdir $my;
    my @as = $> == 0 ? ("--user=$vars->{user}") : ();
    if ($> == 0) {
        my ($uid, $gid) = (getpwnam($vars->{user}))[2, 3];
        chown $uid, $gid, $my;
    }
    my $opts = "--no-defaults --datadir=$my/data --auth-root-authentication-method=normal --skip-test-db";
    my $out = `mariadb-install-db $opts @as 2>&1`;
    die "mariadb-install-db: $out" if $?;
    my $db = { sock => "$my/mysql.sock", dir => $my, by => $$ };
    my $bin = mariadbd_bin();
    $db->{pid} = fork // die "fork: $!";
    if (!$db->{pid}) {
        open STDOUT, '>', "$my/out.log";
        open STDERR, '>&', \*STDOUT;
        no warnings 'exec';
        exec $bin, '--no-defaults', "--datadir=$my/data", "--socket=$db->{sock}", '--skip-networking',
             "--pid-file=$my/mysqld.pid", "--log-error=$my/error.log", '--innodb-buffer-pool-size=16M',
             # as Debian's mariadb.conf.d/50-server.cnf
             '--character-set-server=utf8mb4', '--collation-server=utf8mb4_general_ci', @as;
        POSIX::_exit(127);
    }
    $started{ $db->{pid} } = $db;
    for (1 .. 100) { last if -S $db->{sock}; sleep 0.1 }
    return $db;
}

# The client's arguments for root on $db's socket.
sub client { return ('mariadb', '--no-defaults', "--socket=$_[0]{sock}", '-uroot') }

# Runs $sql as root; 1 if the client said no error.
sub mariadb_sql {
    my ($db, $sql) = @_;
    open my $mc, '|-', client($db) or die "mariadb: $!";
    print $mc $sql;
    return close($mc) ? 1 : 0;
}

# What the query $sql gives as root: rows of tab-separated fields, no
# column names, in UTF-8; an error's message too.
sub mariadb_query {
    my ($db, $sql) = @_;
    open my $mc, '-|', client($db), '--default-character-set=utf8mb4', '-N', '-e', $sql or die "mariadb: $!";
    local $/;
    my $out = <$mc> // '';
    close $mc;
    return $out;
}

# Stops $db's server by its pid (if this process started it); waitpid's
# answer.
sub mariadb_stop {
    my ($db) = @_;
    return -1 unless delete $started{ $db->{pid} // 0 } and $db->{by} == $$;
    kill 'TERM', $db->{pid};
    return waitpid $db->{pid}, 0;
}

1;
