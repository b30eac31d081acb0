# Globals for globals.pl, set once as the file loads (cgi-lib.pl's way).
@site = ('a', 'b');
$title = 'T';
1;
