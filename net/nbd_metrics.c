/*
 * The NBD server's metric families (include/metrics.h): per export, what
 * its clients did since it was exported (those that closed and those
 * connected now: nbd_export_totals), per connected client what it did,
 * and the connections refused. The figures are nbd-list's, from the same
 * fields. Kernel only (the client table is lwIP's); boot CPU only.
 */
#include <stddef.h>
#include <stdio.h>

#include "metrics.h"
#include "nbd_client.h"
#include "net_priv.h"

/* An export's figures, taken once so that every family shows the same moment. */
struct export_figures {
	const struct srv_export *e;
	struct nbd_stats t;
	u64 connections;	/* clients now */
	u64 accepted;		/* clients ever, since exported */
};

#define FIG(f) offsetof(struct export_figures, f)
#define SINCE " since the export was exported (nbd-unexport starts it over)."
static const struct {
	const char *name;
	enum metric_type type;
	size_t off;
	const char *help;
} export_families[] = {
	{ "pmemk_nbd_read_bytes_total", METRIC_COUNTER, FIG(t.bytes_read),
	  "Bytes NBD clients read from the export" SINCE },
	{ "pmemk_nbd_written_bytes_total", METRIC_COUNTER, FIG(t.bytes_written),
	  "Bytes NBD clients wrote to the export" SINCE },
	{ "pmemk_nbd_zero_copy_bytes_total", METRIC_COUNTER, FIG(t.bytes_by_ref),
	  "Bytes of READ data sent from pmem without a copy (part of read bytes)" SINCE },
	{ "pmemk_nbd_reads_total", METRIC_COUNTER, FIG(t.reads), "READ requests" SINCE },
	{ "pmemk_nbd_writes_total", METRIC_COUNTER, FIG(t.writes), "WRITE requests" SINCE },
	{ "pmemk_nbd_flushes_total", METRIC_COUNTER, FIG(t.flushes), "FLUSH requests" SINCE },
	{ "pmemk_nbd_errors_total", METRIC_COUNTER, FIG(t.errors),
	  "Requests answered with an error" SINCE },
	{ "pmemk_nbd_clients", METRIC_GAUGE, FIG(connections),
	  "NBD clients connected to the export now." },
	{ "pmemk_nbd_connections_total", METRIC_COUNTER, FIG(accepted),
	  "NBD clients that chose the export" SINCE },
};

static void export_metrics(void)
{
	struct export_figures f[NBD_MAX_EXPORTS];
	unsigned int n = 0;

	for (unsigned int i = 0; i < NBD_MAX_EXPORTS; i++) {
		const struct srv_export *e = &nbd_exports_tab[i];
		if (!e->used)
			continue;
		f[n] = (struct export_figures){ .e = e, .connections = e->clients,
						.accepted = e->accepted };
		nbd_export_totals(e, &f[n++].t);
	}
	for (size_t k = 0; k < ARRAY_SIZE(export_families); k++) {
		metric_family(export_families[k].name, export_families[k].type,
			      export_families[k].help);
		for (unsigned int i = 0; i < n; i++)
			metric_sample(export_families[k].name,
				      METRIC_LABELS({ "export", f[i].e->name }),
				      *(const u64 *)((const char *)&f[i] + export_families[k].off), 0);
	}
}

/* One sample of a client, with its labels (and op, if not NULL). */
static void client_sample(const char *name, const struct client *cl, const char *op, u64 v)
{
	char id[12], remote[48];

	snprintf(id, sizeof(id), "%u", cl->id);
	nbd_client_remote(cl, remote, sizeof(remote));
	struct metric_label l[] = { { "export", cl->conn.exp->name }, { "client", id },
				    { "remote", remote }, { "op", op } };
	metric_sample(name, l, op ? 4 : 3, v, 0);
}

static void client_read_bytes(const struct client *cl)
{
	client_sample("pmemk_nbd_client_read_bytes_total", cl, NULL, cl->conn.stats.bytes_read);
}

static void client_written_bytes(const struct client *cl)
{
	client_sample("pmemk_nbd_client_written_bytes_total", cl, NULL, cl->conn.stats.bytes_written);
}

static void client_requests(const struct client *cl)
{
	const struct nbd_stats *s = &cl->conn.stats;

	client_sample("pmemk_nbd_client_requests_total", cl, "read", s->reads);
	client_sample("pmemk_nbd_client_requests_total", cl, "write", s->writes);
	client_sample("pmemk_nbd_client_requests_total", cl, "flush", s->flushes);
	client_sample("pmemk_nbd_client_requests_total", cl, "write_zeroes", s->zeroes);
}

/* A family over the clients that chose an export (in the handshake they have done nothing). */
static void client_family(const char *name, const char *help, void (*sample)(const struct client *))
{
	metric_family(name, METRIC_COUNTER, help);
	for (unsigned int i = 0; i < NBD_MAX_CLIENTS; i++)
		if (nbd_clients[i].used && nbd_clients[i].conn.exp)
			sample(&nbd_clients[i]);
}

static void client_metrics(void)
{
	client_family("pmemk_nbd_client_read_bytes_total",
		      "Bytes a connected NBD client read (clients that chose an export).",
		      client_read_bytes);
	client_family("pmemk_nbd_client_written_bytes_total",
		      "Bytes a connected NBD client wrote (clients that chose an export).",
		      client_written_bytes);
	client_family("pmemk_nbd_client_requests_total",
		      "Requests of a connected NBD client, by kind (clients that chose an export).",
		      client_requests);
}

static void nbd_metrics(void)
{
	if (!net_on_its_cpu("metrics"))
		return;
	export_metrics();
	client_metrics();
	metric_single("pmemk_nbd_refused_connections_total", METRIC_COUNTER,
		      "NBD connections refused since boot (nbd.allow=, nbd.max-clients=, "
		      "nbd.max-per-source=).",
		      nbd_refused, 0);
}
METRICS_SOURCE(nbd_metrics);
