/* explain_data.S - data/explain.tsv (explain's rules) embedded (see kb_data.S for the pattern). */
	.section .rodata
	.globl gd_explain_tsv; .type gd_explain_tsv, @object
gd_explain_tsv: .incbin "src/knowledge/data/explain.tsv"; .byte 0
	.size gd_explain_tsv, . - gd_explain_tsv
	.section .note.GNU-stack, "", @progbits
