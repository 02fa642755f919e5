/*
 * test_tl_table.c: the transport registry and the default ops table: a
 * transport that leaves ops NULL gets answers of "unsupported", never a
 * NULL call.
 */
#include "cunit_main.h"

#include "tl.h"

#include <string.h>

static int fake_progress_calls;

static int fake_progress(loom_tl_iface_t *iface)
{
    (void)iface;
    return ++fake_progress_calls;
}

static void fake_query(loom_tl_iface_t *iface, loom_tl_caps_t *caps_p)
{
    (void)iface;
    memset(caps_p, 0, sizeof(*caps_p));
    caps_p->max_am = 4096;
}

/* a transport that implements only query and progress */
static const loom_tl_ops_t fake_ops = {
    .query    = fake_query,
    .progress = fake_progress,
};

static void test_defaults(void)
{
    loom_tl_iface_t iface;
    loom_tl_params_t params = { 0 };
    loom_tl_ep_t ep = { &iface, 1 };
    loom_tl_rkey_t rkey;
    loom_tl_memh_t *memh = NULL;
    loom_tl_ep_t *ep_p = NULL;
    char buf[8];

    loom_tl_iface_init(&iface, "fake", &fake_ops, &params);
    CU_ASSERT_STRING_EQUAL(iface.name, "fake");
    CU_ASSERT_EQUAL(iface.caps.max_am, 4096);   /* query was called */
    CU_ASSERT_EQUAL(loom_tl_iface_progress(&iface), 1);
    CU_ASSERT_EQUAL(loom_tl_ep_am_send(&ep, buf, 4, buf, 4), LOOM_ERR_UNSUPPORTED);
    CU_ASSERT_EQUAL(loom_tl_ep_get(&ep, buf, 8, 0, &rkey, NULL), LOOM_ERR_UNSUPPORTED);
    CU_ASSERT_EQUAL(loom_tl_mem_pack(&iface, buf, 8, &rkey, &memh), LOOM_ERR_UNSUPPORTED);
    CU_ASSERT_PTR_NULL(memh);
    CU_ASSERT_EQUAL(iface.ops.ep_create(&iface, 0, &ep_p), LOOM_ERR_UNSUPPORTED);
    CU_ASSERT_PTR_NULL(ep_p);
    CU_ASSERT_EQUAL(iface.ops.reachable(&iface, 0), 0);
    /* optional ops stay NULL: "not offered", which the engine tests for */
    CU_ASSERT_PTR_NULL(iface.ops.am_peek);
    CU_ASSERT_PTR_NULL(iface.ops.am_consume);
    CU_ASSERT_PTR_NULL(iface.ops.mc_join);
    loom_tl_mem_release(&iface, memh);   /* harmless */
    iface.ops.ep_destroy(&ep);
    iface.ops.close(&iface);
}

static void test_registry(void)
{
    CU_ASSERT_TRUE_FATAL(loom_tl_num_components >= 2);
    CU_ASSERT_STRING_EQUAL(loom_tl_components[0]->name, "self");
    CU_ASSERT_STRING_EQUAL(loom_tl_components[1]->name, "shm");
    for (size_t i = 0; i < loom_tl_num_components; ++i) {
        CU_ASSERT_PTR_NOT_NULL(loom_tl_components[i]->ops);
        CU_ASSERT_PTR_NOT_NULL(loom_tl_components[i]->ops->open);
        for (size_t j = 0; j < i; ++j) {
            CU_ASSERT_STRING_NOT_EQUAL(loom_tl_components[i]->name,
                                       loom_tl_components[j]->name);
        }
    }
}

int main(void)
{
    static const loom_test_case_t cases[] = {
        { "default ops answer unsupported", test_defaults },
        { "registry lists every transport once", test_registry },
        { NULL, NULL },
    };
    return loom_test_run_suite("transport table", cases, NULL, NULL);
}
