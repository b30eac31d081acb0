# a library of subs, required relatively
sub rlib_greet { "hello from rlib ($_[0])" }
1;
