# mk/examples.mk: the example tests include a shared support header, which the
# generic pattern rule in the Makefile does not know about.
$(patsubst tests/integration/%.c,$(O)/tests/integration/%,$(wildcard tests/integration/test_examples*.c)): \
	tests/integration/examples_support.h
