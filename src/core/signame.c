/* signame.c - signal abbreviations (see signame.h for why not sigabbrev_np). */
#include "core/signame.h"

#include <signal.h>
#include <stddef.h>

const char *signame(int sig)
{
	switch (sig) {
	case SIGHUP: return "HUP";
	case SIGINT: return "INT";
	case SIGQUIT: return "QUIT";
	case SIGILL: return "ILL";
	case SIGTRAP: return "TRAP";
	case SIGABRT: return "ABRT";
	case SIGBUS: return "BUS";
	case SIGFPE: return "FPE";
	case SIGKILL: return "KILL";
	case SIGUSR1: return "USR1";
	case SIGSEGV: return "SEGV";
	case SIGUSR2: return "USR2";
	case SIGPIPE: return "PIPE";
	case SIGALRM: return "ALRM";
	case SIGTERM: return "TERM";
#ifdef SIGSTKFLT
	case SIGSTKFLT: return "STKFLT";
#endif
	case SIGCHLD: return "CHLD";
	case SIGCONT: return "CONT";
	case SIGSTOP: return "STOP";
	case SIGTSTP: return "TSTP";
	case SIGTTIN: return "TTIN";
	case SIGTTOU: return "TTOU";
	case SIGURG: return "URG";
	case SIGXCPU: return "XCPU";
	case SIGXFSZ: return "XFSZ";
	case SIGVTALRM: return "VTALRM";
	case SIGPROF: return "PROF";
	case SIGWINCH: return "WINCH";
	case SIGIO: return "IO";
#ifdef SIGPWR
	case SIGPWR: return "PWR";
#endif
	case SIGSYS: return "SYS";
	default: return NULL;
	}
}
