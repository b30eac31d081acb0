# a configuration file read with do
$title = "Corpus site";
@menu = ('home', 'about');
