# knowledge.mk - the knowledge base's data files are embedded by
# src/knowledge/kb_data.S (.incbin); rebuild that object when one changes.
# Included by the top Makefile (mk/*.mk).
KB_DATA_FILES := $(wildcard src/knowledge/data/*.tsv)

$(B)/obj/knowledge/kb_data.o: $(KB_DATA_FILES)
$(B)/obj/knowledge/noise_data.o: src/knowledge/data/noise.tsv
$(B)/obj/knowledge/explain_data.o: src/knowledge/data/explain.tsv
