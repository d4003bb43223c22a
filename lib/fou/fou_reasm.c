/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reassembly of IPv4 fragments addressed to the gateway, as Linux' ip_defrag
 * does it in ip_local_deliver: FOU, plain tunnels and whatever else is for
 * us arrive as outer fragments from a peer whose tunnel has nopmtudisc, or
 * from a path that fragments. Each worker lcore has a table of its own
 * (RSS hashes IPv4 fragments on their addresses only, so the fragments of
 * a datagram meet on one lcore); runs on worker lcores: no locks, no logs,
 * no allocation.
 *
 * DPDK's rte_ip_frag holds the fragments and chains them into the
 * datagram. In 22.11 it does not say why it drops something, does not drop
 * what Linux drops (overlaps are only caught when the sizes stop adding
 * up, a duplicate kills its datagram where Linux drops it alone, a short
 * non-last fragment is kept where Linux trims it to 8-byte units), cannot
 * remove one datagram, and frees timed-out ones silently. So each table
 * has a shadow, keyed as DPDK's (source, destination, ID): per datagram the
 * byte ranges, the end, the fragments and mbufs it holds, its start. A
 * fragment is checked against it first, the way ip_frag_queue checks it,
 * and reaches DPDK only when DPDK will do with it what Linux would: keep
 * it, or complete the datagram. A datagram Linux would drop whole is
 * dropped through DPDK's own error path: the fragment is handed over
 * rewritten as a second first fragment (or, before the first came, a last
 * one that cannot fit), which makes DPDK free the datagram with it. Timed-out
 * datagrams are taken out (rte_ip_frag_table_del_expired_entries) before
 * any fragment is handed over at that time, so DPDK never meets a stale
 * one on its own, and the shadow knows which went. Every fragment is
 * counted once: taken in (reasm_in) and out (reasm_out) of the table, and
 * then absorbed into its datagram's first or dropped under a reason.
 */
#include <rte_cycles.h>
#include <rte_hash_crc.h>
#include <rte_ip_frag.h>
#include <rte_malloc.h>

#include "fou_fwd.h"
#include "fou_icmp.h"
#include "fou_reasm.h"

#define FOU_REASM_FRAGS RTE_LIBRTE_IP_FRAG_MAX_FRAG	/* per datagram, first and last included */
#define FOU_REASM_SLOTS (2 * FOU_REASM_DGRAMS)		/* the shadow's hash, at most half full */
#define FOU_REASM_BUCKETS 256				/* DPDK's table: 2 x 256 x 4 entries */
#define FOU_REASM_BUCKET_ENTRIES 4
#define FOU_REASM_MAX_IP 65535

#define FOU_RF_FIRST 0x01	/* the fragment at offset 0 came */
#define FOU_RF_LAST 0x02	/* the one without MF came: len is the payload's */

/* ECN of the fragments, as Linux' IPFRAG_ECN_* bits */
#define FOU_RE_NOT_ECT 0x01
#define FOU_RE_ECT_1 0x02
#define FOU_RE_ECT_0 0x04
#define FOU_RE_CE 0x08

static_assert(FOU_REASM_DGRAMS < UINT16_MAX, "datagram index travels in 16 bits");

/* One datagram in reassembly. */
struct fou_reasm_dg {
	rte_be32_t src, dst;
	rte_be16_t id;
	uint8_t proto;
	uint8_t nfrag;			/* fragments held */
	uint8_t flags;			/* FOU_RF_* */
	uint8_t ecn;			/* FOU_RE_* */
	uint16_t nseg;			/* mbufs they take */
	uint32_t len;			/* the highest end seen: Linux' q.len */
	uint32_t have;			/* payload bytes held */
	uint64_t start;			/* TSC of its first fragment: DPDK's start */
	uint16_t older, newer;		/* the age list, by start; FOU_REASM_NONE ends it */
	uint16_t slot;			/* in the hash */
	struct {
		uint16_t off, end;
	} r[FOU_REASM_FRAGS];
};

#define FOU_REASM_NONE UINT16_MAX

struct fou_reasm {
	struct rte_ip_frag_tbl *tbl;
	uint64_t max_cycles;		/* the reassembly time, TSC cycles */
	uint64_t clock;			/* the latest now seen: DPDK's LRU order is its
					 * start order only while time never goes back */
	uint32_t max_seg;		/* mbufs it may hold */
	uint32_t nseg;			/* mbufs it holds */
	uint32_t n;			/* datagrams */
	uint16_t oldest, newest;
	uint16_t free_head;		/* unused datagrams, linked by newer */
	uint16_t slot[FOU_REASM_SLOTS];	/* datagram + 1; 0: empty */
	struct fou_reasm_dg dg[FOU_REASM_DGRAMS];
	struct rte_ip_frag_death_row dr;
};

/* --- control ------------------------------------------------------------ */

int
fou_reasm_time_set(struct fou_gw *gw, uint32_t seconds, struct fou_err *err)
{
	if (seconds == 0 || seconds > FOU_REASM_TIME_MAX) {
		fou_err_set(err, "reassembly time %u is not 1-%u seconds", seconds,
			    FOU_REASM_TIME_MAX);
		return -EINVAL;
	}
	if (gw->ports_running && seconds != gw->reasm_time) {
		fou_err_set(err, "the reassembly time is set at start only");
		return -EBUSY;
	}
	gw->reasm_time = seconds;
	return 0;
}

uint32_t
fou_reasm_time_get(const struct fou_gw *gw)
{
	return gw->reasm_time;
}

struct fou_reasm *
fou_reasm_create(const struct fou_gw *gw, struct rte_mempool *pool, uint32_t reasm_mem,
		 int socket_id)
{
	/* an mbuf held counts whole, as Linux counts an skb's truesize */
	const uint32_t truesize = pool != NULL ? pool->elt_size :
				  (uint32_t)(sizeof(struct rte_mbuf) + RTE_MBUF_DEFAULT_BUF_SIZE);
	struct fou_reasm *r;
	unsigned int i;

	r = rte_zmalloc_socket("fou_reasm", sizeof(*r), RTE_CACHE_LINE_SIZE, socket_id);
	if (r == NULL)
		return NULL;
	r->max_cycles = (uint64_t)gw->reasm_time * rte_get_tsc_hz();
	r->tbl = rte_ip_frag_table_create(FOU_REASM_BUCKETS, FOU_REASM_BUCKET_ENTRIES,
					  FOU_REASM_DGRAMS, r->max_cycles, socket_id);
	if (r->tbl == NULL) {
		rte_free(r);
		return NULL;
	}
	r->max_seg = (reasm_mem != 0 ? reasm_mem : FOU_REASM_MEM) / truesize;
	r->oldest = r->newest = FOU_REASM_NONE;
	for (i = 0; i < FOU_REASM_DGRAMS; i++)
		r->dg[i].newer = (uint16_t)(i + 1 < FOU_REASM_DGRAMS ? i + 1 : FOU_REASM_NONE);
	r->free_head = 0;
	return r;
}

bool
fou_reasm_busy(const struct fou_reasm *r)
{
	return r != NULL && r->n != 0;
}

/* --- the shadow ---------------------------------------------------------- */

static inline uint32_t
fou_reasm_hash(rte_be32_t src, rte_be32_t dst, rte_be16_t id)
{
	return rte_hash_crc_4byte(id, rte_hash_crc_4byte(dst, rte_hash_crc_4byte(src, 0)));
}

/* The datagram of (src, dst, id), or NULL; *slot: where it is or would go. */
static inline struct fou_reasm_dg *
fou_reasm_find(struct fou_reasm *r, rte_be32_t src, rte_be32_t dst, rte_be16_t id,
	       uint32_t *slot)
{
	uint32_t s = fou_reasm_hash(src, dst, id) & (FOU_REASM_SLOTS - 1);

	/* at most half full: a probe always ends at an empty slot */
	for (;; s = (s + 1) & (FOU_REASM_SLOTS - 1)) {
		struct fou_reasm_dg *d;

		if (r->slot[s] == 0) {
			*slot = s;
			return NULL;
		}
		d = &r->dg[r->slot[s] - 1];
		if (d->src == src && d->dst == dst && d->id == id) {
			*slot = s;
			return d;
		}
	}
}

static struct fou_reasm_dg *
fou_reasm_new(struct fou_reasm *r, uint32_t slot, const struct rte_ipv4_hdr *ip, uint64_t now)
{
	const uint16_t i = r->free_head;
	struct fou_reasm_dg *d = &r->dg[i];

	r->free_head = d->newer;
	memset(d, 0, sizeof(*d));
	d->src = ip->src_addr;
	d->dst = ip->dst_addr;
	d->id = ip->packet_id;
	d->proto = ip->next_proto_id;
	d->start = now;
	d->slot = (uint16_t)slot;
	r->slot[slot] = (uint16_t)(i + 1);
	d->older = r->newest;
	d->newer = FOU_REASM_NONE;
	if (r->newest != FOU_REASM_NONE)
		r->dg[r->newest].newer = i;
	else
		r->oldest = i;
	r->newest = i;
	r->n++;
	return d;
}

/* The datagram leaves the shadow (DPDK's entry went with it). */
static void
fou_reasm_del(struct fou_reasm *r, struct fou_reasm_dg *d)
{
	const uint16_t i = (uint16_t)(d - r->dg);
	uint32_t hole = d->slot, s = hole;

	if (d->older != FOU_REASM_NONE)
		r->dg[d->older].newer = d->newer;
	else
		r->oldest = d->newer;
	if (d->newer != FOU_REASM_NONE)
		r->dg[d->newer].older = d->older;
	else
		r->newest = d->older;
	r->nseg -= d->nseg;
	r->n--;
	/* linear probing: what follows the hole in its run moves up */
	r->slot[hole] = 0;
	for (;;) {
		struct fou_reasm_dg *e;
		uint32_t home;

		s = (s + 1) & (FOU_REASM_SLOTS - 1);
		if (r->slot[s] == 0)
			break;
		e = &r->dg[r->slot[s] - 1];
		home = fou_reasm_hash(e->src, e->dst, e->id) & (FOU_REASM_SLOTS - 1);
		/* it stays unless its home is cyclically outside (hole, s] */
		if (((s - home) & (FOU_REASM_SLOTS - 1)) < ((s - hole) & (FOU_REASM_SLOTS - 1)))
			continue;
		r->slot[hole] = r->slot[s];
		e->slot = (uint16_t)hole;
		r->slot[s] = 0;
		hole = s;
	}
	d->newer = r->free_head;
	r->free_head = i;
}

static inline uint64_t
fou_reasm_clock(struct fou_reasm *r, uint64_t now)
{
	if (now > r->clock)
		r->clock = now;
	return r->clock;
}

static inline uint8_t
fou_reasm_ecn_bit(uint8_t tos)
{
	return (uint8_t)(1u << (tos & 3));
}

/* --- through DPDK ----------------------------------------------------------- */

/* Room on the death row for a datagram dropped whole with one more. */
static inline void
fou_reasm_dr_room(struct fou_reasm *r)
{
	if (r->dr.cnt + FOU_REASM_FRAGS + 1 > RTE_IP_FRAG_DEATH_ROW_MBUF_LEN)
		rte_ip_frag_free_death_row(&r->dr, 0);
}

/* Hand m (its IPv4 header ip at off, hl) to DPDK's table at now. */
static inline struct rte_mbuf *
fou_reasm_dpdk(struct fou_reasm *r, struct rte_mbuf *m, uint32_t off, uint32_t hl,
	       struct rte_ipv4_hdr *ip, uint64_t now)
{
	m->l2_len = off;
	m->l3_len = hl;
	return rte_ipv4_frag_reassemble_packet(r->tbl, &r->dr, m, now, ip);
}

/*
 * Drop datagram d whole, with the fragment m that condemned it, under
 * reason. 22.11 has no call that removes one datagram: m goes in as a
 * fragment DPDK must refuse, and its refusal frees the datagram. With the
 * first fragment in, m becomes a second first one; without it, a last one at
 * offset 8 whose end the bytes held (8 or more: every fragment held is) reach
 * or pass, with no first to complete it.
 */
static unsigned int
fou_reasm_kill(struct fou_lcore *lc, struct fou_reasm_dg *d, struct rte_mbuf *m, uint32_t off,
	       struct rte_ipv4_hdr *ip, uint32_t hl, unsigned int reason)
{
	struct fou_reasm *r = lc->reasm;
	struct rte_mbuf *done;
	uint32_t before;

	fou_reasm_dr_room(r);
	before = r->dr.cnt;
	ip->fragment_offset = rte_cpu_to_be_16(d->flags & FOU_RF_FIRST ? RTE_IPV4_HDR_MF_FLAG : 1);
	/* a payload DPDK takes for one (it never reads it) */
	if (rte_be_to_cpu_16(ip->total_length) < hl + 8)
		ip->total_length = rte_cpu_to_be_16((uint16_t)(hl + 8));
	done = fou_reasm_dpdk(r, m, off, hl, ip, r->clock);
	RTE_VERIFY(done == NULL && r->dr.cnt == before + d->nfrag + 1u);
	FOU_STAT_ADD(lc->st->drop[reason], d->nfrag + 1u);
	FOU_STAT_ADD(lc->st->reasm_out, d->nfrag);
	fou_reasm_del(r, d);
	return FOU_TAKEN;
}

/* The datagram DPDK chained: its header made whole again, one mbuf if it fits. */
static struct rte_mbuf *
fou_reasm_finish(struct rte_mbuf *m, uint8_t ecn)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, m->l2_len);

	/* ip_frag_ecn_table: CE on any fragment is CE on the datagram */
	if ((ecn & FOU_RE_CE) && (ip->type_of_service & 3) != 0)
		ip->type_of_service |= 3;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	/* the common case (a datagram a little over the path MTU) fits in
	 * the first fragment's mbuf: one copy of the small rest, and every
	 * later stage sees a plain mbuf; a larger one stays a chain */
	if (m->nb_segs > 1 && rte_pktmbuf_tailroom(m) >= m->pkt_len - m->data_len)
		rte_pktmbuf_linearize(m);
	return m;
}

/* --- the receive step -------------------------------------------------------- */

unsigned int
fou_reasm4(struct fou_lcore *lc, struct rte_mbuf *m, uint32_t off, struct rte_ipv4_hdr *ip,
	   uint32_t hl, uint32_t tot)
{
	struct fou_reasm *r = lc->reasm;
	const uint16_t fo = rte_be_to_cpu_16(ip->fragment_offset);
	const uint32_t offset = (uint32_t)(fo & RTE_IPV4_HDR_OFFSET_MASK) * 8;
	const bool mf = (fo & RTE_IPV4_HDR_MF_FLAG) != 0;
	uint32_t end = offset + tot - hl, slot, before, i, inter;
	struct fou_reasm_dg *d;
	struct rte_mbuf *done;
	uint8_t flags, ecn;

	if (r == NULL)
		return FOU_DROP_REASM_FULL;
	fou_reasm_clock(r, lc->now);
	d = fou_reasm_find(r, ip->src_addr, ip->dst_addr, ip->packet_id, &slot);
	/* the key is DPDK's: another protocol under the ID of a datagram in
	 * reassembly (Linux keeps it apart) cannot join it */
	if (d != NULL && d->proto != ip->next_proto_id)
		return FOU_DROP_REASM_BAD;
	/* ip_frag_reasm refuses it once whole; no sense waiting for that */
	if (hl + end > FOU_REASM_MAX_IP)
		return d != NULL ? fou_reasm_kill(lc, d, m, off, ip, hl, FOU_DROP_REASM_OVERSIZE) :
				   FOU_DROP_REASM_OVERSIZE;
	/* ip_frag_queue: a last fragment sets the end, which nothing may
	 * pass or fall short of; others are cut to 8-byte units */
	if (!mf) {
		if (d != NULL && (end < d->len || ((d->flags & FOU_RF_LAST) && end != d->len)))
			return fou_reasm_kill(lc, d, m, off, ip, hl, FOU_DROP_REASM_BAD);
	} else {
		if (end & 7) {
			end &= ~7u;
			tot = hl + end - offset;
			ip->total_length = rte_cpu_to_be_16((uint16_t)tot);
			ip->hdr_checksum = 0;
			ip->hdr_checksum = rte_ipv4_cksum(ip);
		}
		if (d != NULL && end > d->len && (d->flags & FOU_RF_LAST))
			return fou_reasm_kill(lc, d, m, off, ip, hl, FOU_DROP_REASM_BAD);
	}
	if (end == offset)
		return d != NULL ? fou_reasm_kill(lc, d, m, off, ip, hl, FOU_DROP_REASM_BAD) :
				   FOU_DROP_REASM_BAD;
	flags = (uint8_t)((offset == 0 ? FOU_RF_FIRST : 0) | (!mf ? FOU_RF_LAST : 0));
	ecn = fou_reasm_ecn_bit(ip->type_of_service);
	if (d != NULL) {
		/* inet_frag_queue_insert: inside one held is a duplicate,
		 * any other overlap drops the datagram (RFC 5722) */
		for (i = 0; i < d->nfrag; i++) {
			if (offset >= d->r[i].off && end <= d->r[i].end)
				return FOU_DROP_REASM_DUPLICATE;
			if (offset < d->r[i].end && end > d->r[i].off)
				return fou_reasm_kill(lc, d, m, off, ip, hl, FOU_DROP_REASM_OVERLAP);
		}
		/* DPDK keeps a first, a last and 6 between them */
		inter = d->nfrag - ((d->flags & FOU_RF_FIRST) != 0) - ((d->flags & FOU_RF_LAST) != 0);
		if (flags == 0 && inter == FOU_REASM_FRAGS - 2)
			return fou_reasm_kill(lc, d, m, off, ip, hl, FOU_DROP_REASM_TOO_MANY);
		/* complete with this one: ip_frag_reasm's ECN check first */
		if ((d->flags | flags) == (FOU_RF_FIRST | FOU_RF_LAST) &&
		    d->have + end - offset == (flags & FOU_RF_LAST ? end : d->len) &&
		    ((d->ecn | ecn) & (FOU_RE_CE | FOU_RE_NOT_ECT)) == (FOU_RE_CE | FOU_RE_NOT_ECT))
			return fou_reasm_kill(lc, d, m, off, ip, hl, FOU_DROP_REASM_ECN);
	} else if (r->n == FOU_REASM_DGRAMS) {
		return FOU_DROP_REASM_FULL;
	}
	/* Linux' ipfrag_high_thresh: over it, fragments are dropped */
	if (r->nseg + m->nb_segs > r->max_seg)
		return FOU_DROP_REASM_FULL;

	fou_reasm_dr_room(r);
	before = r->dr.cnt;
	done = fou_reasm_dpdk(r, m, off, hl, ip, r->clock);
	if (d == NULL) {
		/* the one refusal left to DPDK: both its buckets full */
		if (r->dr.cnt != before) {
			RTE_VERIFY(done == NULL && r->dr.cnt == before + 1 &&
				   r->dr.row[before] == m);
			FOU_STAT_ADD(lc->st->drop[FOU_DROP_REASM_FULL], 1);
			return FOU_TAKEN;
		}
		d = fou_reasm_new(r, slot, ip, r->clock);
	}
	RTE_VERIFY(r->dr.cnt == before);
	FOU_STAT_ADD(lc->st->reasm_in, 1);
	if (done != NULL) {
		FOU_STAT_ADD(lc->st->reasm_out, d->nfrag + 1u);
		FOU_STAT_ADD(lc->st->reasm_absorbed, d->nfrag);
		FOU_STAT_ADD(lc->st->reasm_datagrams, 1);
		ecn |= d->ecn;
		fou_reasm_del(r, d);
		lc->reasm_done = fou_reasm_finish(done, ecn);
		return FOU_REASSEMBLED;
	}
	RTE_VERIFY(d->nfrag < FOU_REASM_FRAGS);
	d->r[d->nfrag].off = (uint16_t)offset;
	d->r[d->nfrag].end = (uint16_t)end;
	d->nfrag++;
	d->flags |= flags;
	d->ecn |= ecn;
	if (end > d->len)
		d->len = end;
	d->have += end - offset;
	d->nseg = (uint16_t)(d->nseg + m->nb_segs);
	r->nseg += m->nb_segs;
	return FOU_TAKEN;
}

/* --- timers ------------------------------------------------------------------ */

/*
 * ip_expire: the first fragment of a datagram that timed out, if it came,
 * goes back as ICMP time exceeded, fragment reassembly time exceeded, from
 * the address it was sent to; never about a fragment in a group frame.
 */
static void
fou_reasm_icmp(struct fou_lcore *lc, struct rte_mbuf *m, fou_emit_fn emit, void *ctx)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *,
								 m->l2_len);
	uint16_t port;
	unsigned int v;

	if (!rte_is_unicast_ether_addr(&eth->dst_addr))
		v = FOU_DROP_REASM_TIMEOUT;
	else
		v = fou_icmp4_error(lc, m, m->l2_len, rte_be_to_cpu_16(ip->total_length),
				    FOU_ICMP_REASM_EXCEEDED, 0, true, FOU_DROP_REASM_TIMEOUT, &port);
	if (v == FOU_FWD) {
		emit(ctx, &m, &port, 1);
		return;
	}
	if (v == FOU_HELD)
		return;
	FOU_STAT_ADD(lc->st->drop[v], 1);
	rte_pktmbuf_free(m);
}

/*
 * Take the datagrams stale at tms (all of them: tms UINT64_MAX) out of
 * DPDK's table and the shadow, oldest first as both keep them; their
 * fragments are dropped under reason, first fragments of a timeout
 * becoming ICMP errors where emit is given.
 */
static void
fou_reasm_reap(struct fou_lcore *lc, struct fou_reasm *r, struct fou_lcore_stats *st,
	       uint64_t tms, unsigned int reason, fou_emit_fn emit, void *ctx)
{
	for (;;) {
		uint32_t nfrag = 0, i;

		if (r->oldest == FOU_REASM_NONE || r->max_cycles + r->dg[r->oldest].start >= tms)
			return;
		rte_ip_frag_free_death_row(&r->dr, 0);
		rte_ip_frag_table_del_expired_entries(r->tbl, &r->dr, tms);
		while (nfrag < r->dr.cnt) {
			struct fou_reasm_dg *d = &r->dg[r->oldest];

			RTE_VERIFY(r->oldest != FOU_REASM_NONE &&
				   r->max_cycles + d->start < tms);
			nfrag += d->nfrag;
			fou_reasm_del(r, d);
		}
		RTE_VERIFY(nfrag == r->dr.cnt && nfrag != 0);
		FOU_STAT_ADD(st->reasm_out, nfrag);
		if (emit != NULL) {
			for (i = 0; i < r->dr.cnt; i++) {
				struct rte_mbuf *m = r->dr.row[i];
				const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(
					m, const struct rte_ipv4_hdr *, m->l2_len);

				if (ip->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_OFFSET_MASK))
					continue;
				r->dr.row[i--] = r->dr.row[--r->dr.cnt];
				nfrag--;
				fou_reasm_icmp(lc, m, emit, ctx);
			}
		}
		FOU_STAT_ADD(st->drop[reason], nfrag);
		rte_ip_frag_free_death_row(&r->dr, 0);
	}
}

void
fou_reasm_expire(struct fou_lcore *lc, uint64_t now, fou_emit_fn emit, void *ctx)
{
	struct fou_reasm *r = lc->reasm;

	if (r == NULL)
		return;
	if (r->n != 0) {
		lc->now = now;
		fou_reasm_reap(lc, r, lc->st, fou_reasm_clock(r, now), FOU_DROP_REASM_TIMEOUT,
			       emit, ctx);
	}
	if (r->dr.cnt != 0)
		rte_ip_frag_free_death_row(&r->dr, 0);
}

void
fou_reasm_flush(struct fou_reasm *r, struct fou_lcore_stats *st)
{
	if (r == NULL)
		return;
	rte_ip_frag_free_death_row(&r->dr, 0);
	/* every start is older than the end of time: DPDK lets all go */
	fou_reasm_reap(NULL, r, st, UINT64_MAX, FOU_DROP_REASM_STOPPED, NULL, NULL);
}

void
fou_reasm_free(struct fou_reasm *r, struct fou_lcore_stats *st)
{
	if (r == NULL)
		return;
	fou_reasm_flush(r, st);
	rte_ip_frag_table_destroy(r->tbl);
	rte_free(r);
}
