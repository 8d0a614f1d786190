/*
 * Host tests: NBD export specs, DEV[:ro][@ID[+ID...]] (net/nbd_export_spec.c):
 * good ones with their device, ro and identities; bad ones refused whole
 * with their phrase (a bad identity, an empty one, one too long, too many,
 * anything but :ro after the device); and who an identity list lets open
 * an export.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "../../net/nbd_priv.h"

static struct nbd_export_spec sp;
static const char *why;

static void parses(const char *s, const char *dev, bool ro, unsigned int nids)
{
	why = NULL;
	assert_int_equal(nbd_export_spec_parse(s, &sp, &why), 0);
	assert_null(why);
	assert_string_equal(sp.dev, dev);
	assert_int_equal(sp.ro, ro);
	assert_int_equal(sp.ids.n, nids);
}

static void refused(const char *s, const char *phrase)
{
	why = NULL;
	assert_int_equal(nbd_export_spec_parse(s, &sp, &why), -EINVAL);
	assert_non_null(why);
	assert_string_equal(why, phrase);
}

static void nbd_export_spec_good_ones(void **state)
{
	char buf[NBD_EXPORT_SPEC_MAX + 1];

	(void)state;
	parses("pmem0", "pmem0", false, 0);
	parses("pmem1m:ro", "pmem1m", true, 0);
	parses("pmem1@alice+bob", "pmem1", false, 2);
	assert_string_equal(sp.ids.id[0], "alice");
	assert_string_equal(sp.ids.id[1], "bob");
	parses("pmem2:ro@carol", "pmem2", true, 1);
	assert_string_equal(sp.ids.id[0], "carol");
	parses("dax1.0@A.b_c-9", "dax1.0", false, 1);
	assert_string_equal(sp.ids.id[0], "A.b_c-9");
	/* The longest: a 23-character device, :ro, eight 63-character identities. */
	char s[NBD_EXPORT_SPEC_MAX + 1], *p = s;
	memset(p, 'd', 23);
	p += 23;
	memcpy(p, ":ro@", 4);
	p += 4;
	for (int i = 0; i < NBD_EXPORT_IDS; i++) {
		if (i)
			*p++ = '+';
		memset(p, 'a' + i, NBD_IDENTITY_MAX);
		p += NBD_IDENTITY_MAX;
	}
	*p = '\0';
	assert_int_equal(strlen(s), NBD_EXPORT_SPEC_MAX);
	why = NULL;
	assert_int_equal(nbd_export_spec_parse(s, &sp, &why), 0);
	assert_true(sp.ro);
	assert_int_equal(sp.ids.n, 8);
	assert_int_equal(strlen(sp.ids.id[7]), NBD_IDENTITY_MAX);
	assert_int_equal(sp.ids.id[7][0], 'h');
	nbd_id_list_format(&sp.ids, buf, sizeof(buf));
	assert_int_equal(strlen(buf), 8 * NBD_IDENTITY_MAX + 7);
	assert_int_equal(buf[NBD_IDENTITY_MAX], ' ');
}

static void nbd_export_spec_bad_ones_are_refused_whole(void **state)
{
	char s[128];

	(void)state;
	refused("", "not a device name");
	refused(":ro", "not a device name");
	refused("@alice", "not a device name");
	refused("pmem0123456789012345678901", "not a device name");
	refused("pmem0:rw", "only :ro may follow the device name");
	refused("pmem0:ro:ro", "only :ro may follow the device name");
	refused("pmem0:", "only :ro may follow the device name");
	refused("pmem0:rox", "only :ro may follow the device name");
	refused("pmem0@", "an empty identity");
	refused("pmem0@alice+", "an empty identity");
	refused("pmem0@alice++bob", "an empty identity");
	refused("pmem0@+bob", "an empty identity");
	refused("pmem0@al ice", "an identity may hold only letters, digits, '.', '_' and '-'");
	refused("pmem0@alice@bob", "an identity may hold only letters, digits, '.', '_' and '-'");
	refused("pmem0@alice:ro", "an identity may hold only letters, digits, '.', '_' and '-'");
	refused("pmem0@a+b+c+d+e+f+g+h+i", "more than 8 identities");
	memcpy(s, "pmem0@", 6);
	memset(s + 6, 'x', 64);
	s[70] = '\0';
	refused(s, "an identity longer than 63 characters");
	/* Refused whole: nothing of the spec is left in it. */
	refused("pmem0:ro@a+b+c+d+e+f+g+h+i", "more than 8 identities");
	assert_int_equal(sp.ids.n, 0);
	assert_false(sp.ro);
	assert_string_equal(sp.dev, "");
	s[69] = '\0';	/* 63 of them: fine */
	parses(s, "pmem0", false, 1);
}

static void nbd_id_list_decides_who_may_open(void **state)
{
	char buf[16];

	(void)state;
	parses("pmem0", "pmem0", false, 0);
	assert_true(nbd_id_list_allows(&sp.ids, NULL));	/* no list: anyone */
	assert_true(nbd_id_list_allows(&sp.ids, "x"));
	nbd_id_list_format(&sp.ids, buf, sizeof(buf));
	assert_string_equal(buf, "");
	parses("pmem0@alice+bob", "pmem0", false, 2);
	assert_false(nbd_id_list_allows(&sp.ids, NULL));	/* a list: TLS clients on it only */
	assert_false(nbd_id_list_allows(&sp.ids, ""));
	assert_false(nbd_id_list_allows(&sp.ids, "alic"));
	assert_false(nbd_id_list_allows(&sp.ids, "alice2"));
	assert_false(nbd_id_list_allows(&sp.ids, "Alice"));
	assert_true(nbd_id_list_allows(&sp.ids, "alice"));
	assert_true(nbd_id_list_allows(&sp.ids, "bob"));
	nbd_id_list_format(&sp.ids, buf, sizeof(buf));
	assert_string_equal(buf, "alice bob");
	nbd_id_list_format(&sp.ids, buf, 8);	/* cut: whole identities only */
	assert_string_equal(buf, "alice");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nbd_export_spec_good_ones),
		cmocka_unit_test(nbd_export_spec_bad_ones_are_refused_whole),
		cmocka_unit_test(nbd_id_list_decides_who_may_open),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
