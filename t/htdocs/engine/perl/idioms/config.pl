# A configuration of globals, required by req_a.pl and req_b.pl.
$site_name = 'My Site';
1;
