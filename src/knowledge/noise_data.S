/* noise_data.S - data/noise.tsv embedded (see kb_data.S for the pattern). */
	.section .rodata
	.globl gd_noise_tsv; .type gd_noise_tsv, @object
gd_noise_tsv: .incbin "src/knowledge/data/noise.tsv"; .byte 0
	.size gd_noise_tsv, . - gd_noise_tsv
	.section .note.GNU-stack, "", @progbits
