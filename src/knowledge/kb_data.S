/*
 * kb_data.S - the knowledge-base data files, embedded at build time.
 *
 * .incbin reads each file relative to the directory make runs in (the
 * repository root); mk/knowledge.mk makes this object depend on the files.
 * Each blob is NUL-terminated so that C can use it as a string.
 */
#define KB_EMBED(sym, file) \
	.globl sym; .type sym, @object; sym: .incbin file; .byte 0; .size sym, . - sym

	.section .rodata
KB_EMBED(kb_data_sources, "src/knowledge/data/sources.tsv")
KB_EMBED(kb_data_facts, "src/knowledge/data/facts.tsv")
KB_EMBED(kb_data_tf, "src/knowledge/data/tf.tsv")
KB_EMBED(kb_data_torch, "src/knowledge/data/torch.tsv")
KB_EMBED(kb_data_jax, "src/knowledge/data/jax.tsv")
KB_EMBED(kb_data_cuda, "src/knowledge/data/cuda.tsv")
KB_EMBED(kb_data_cuda_compat, "src/knowledge/data/cuda_compat.tsv")
KB_EMBED(kb_data_branches, "src/knowledge/data/branches.tsv")
KB_EMBED(kb_data_archs, "src/knowledge/data/archs.tsv")
KB_EMBED(kb_data_cudnn, "src/knowledge/data/cudnn.tsv")
KB_EMBED(kb_data_sonames, "src/knowledge/data/sonames.tsv")
KB_EMBED(kb_data_gpus, "src/knowledge/data/gpus.tsv")
KB_EMBED(kb_data_xid, "src/knowledge/data/xid.tsv")

	.section .note.GNU-stack, "", @progbits
