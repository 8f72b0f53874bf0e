/*
 * kb_xid.h - NVIDIA's XID catalogue (data/xid.tsv): what an XID the driver
 * logs means and what NVIDIA says to do about it.  Used by `watch` to judge
 * XIDs read from the kernel log, and by anyone explaining an NVRM line.
 *
 *	struct kb_xid x;
 *	if (kb_xid_find(kb, 79, &x) == 0)
 *		... x.name, x.meaning, kb_xid_action_name(x.action), x.source ...
 *
 * Strings point into the knowledge base and live as long as it.
 */
#ifndef GD_KB_XID_H
#define GD_KB_XID_H

struct kb;

/* In order of severity: a larger action includes the smaller ones. */
enum kb_xid_action {
	KB_XID_NONE,		/* "none": informational */
	KB_XID_RESTART_APP,	/* "restart-app" */
	KB_XID_RESET_GPU,	/* "reset-gpu" */
	KB_XID_REBOOT,		/* "reboot" */
	KB_XID_DRAIN,		/* "drain": take the node out of service */
	KB_XID_INSPECT_HW,	/* "inspect-hw": a person must look at the hardware */
	KB_XID_NACTIONS
};

struct kb_xid {
	int xid;
	const char *name;		/* mnemonic: "ROBUST_CHANNEL_GPU_ECC_DBE" */
	const char *meaning;		/* "Double Bit ECC Error" */
	enum kb_xid_action action;	/* the catalogue's immediate action, mapped */
	const char *nvidia_immediate;	/* "WORKFLOW_XID_48", or NULL */
	const char *nvidia_investigatory;	/* or NULL */
	const char *source;		/* source id(s) */
};

/* 0 and *out filled when the catalogue has the XID, else -1. */
int kb_xid_find(const struct kb *kb, int xid, struct kb_xid *out);
/* Number of rows, and row i (NULL past the end). */
int kb_xid_count(const struct kb *kb);
const struct kb_xid *kb_xid_at(const struct kb *kb, int i);

/*
 * What to do about one logged XID, and who says so.  The action is NVIDIA's
 * where NVIDIA gives one: the catalogue's immediate bucket, or for XID 154
 * the action the driver prints in the line itself ("... to 0x2 (Node Reboot
 * Required)", NVML's nvmlGpuRecoveryAction_t: 0 none, 1 GPU reset, 2 node
 * reboot, 3 drain P2P, 4 drain and reset).  Where the catalogue gives none
 * (162-172), the action is gpudoctor's judgement and by_nvidia is 0.
 * message may be NULL (the line is not known).
 */
struct kb_xid_judgement {
	enum kb_xid_action action;
	int by_nvidia;		/* 1: NVIDIA's action; 0: gpudoctor's judgement */
	int from_message;	/* 1: read from the line (XID 154) */
	const char *note;	/* the catalogue's note that goes with it, or NULL */
};
void kb_xid_judge(const struct kb_xid *x, const char *message, struct kb_xid_judgement *out);
/* "NVIDIA's action: reboot (in the message: Node Reboot Required)" or
 * "no action in NVIDIA's catalogue; gpudoctor's judgement: inspect-hw",
 * with the note after "; ".  Returns buf. */
char *kb_xid_action_text(const struct kb_xid *x, const char *message, char *buf, unsigned long size);

/* "reset-gpu" <-> KB_XID_RESET_GPU; parse returns -1 for an unknown name. */
const char *kb_xid_action_name(enum kb_xid_action a);
int kb_xid_action_parse(const char *s, enum kb_xid_action *out);

#endif
