package CorpusPerl5lib;
sub hello { 'from PERL5LIB' }
1;
