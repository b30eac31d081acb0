package CorpusSwitchI;
sub hello { 'from lib_i' }
1;
