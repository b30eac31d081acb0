package CorpusMod;
sub hi { "CorpusMod says hi" }
1;
