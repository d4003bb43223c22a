/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The exception path to the kernel (--punt), its control side: per port a
 * kernel interface, which the control thread feeds with what the workers
 * handed up (fou_punt.h) and reads what the kernel sends out of, to leave
 * through the port by a started worker's inject ring (as the gateway's own
 * ARP and ND do). The interface follows the port: its MAC address and MTU
 * (ethdev calls on the interface's device), its addresses (rtnetlink, from
 * the control thread only, never a worker).
 *
 * The interface is a net_tap device. virtio_user with vhost-kernel would
 * copy packets in a vhost kernel thread without a syscall per packet, but
 * needs /dev/vhost-net (a stock Debian 12 has it, group kvm; containers
 * and minimal images often do not, as the test machine) and a kernel
 * thread per queue; net_tap needs /dev/net/tun only, which every
 * Linux with the tun module has (as the tests' taps do), and costs a
 * read or write per packet on the control thread: right for the control
 * plane (BGP, BFD, SSH) this path is for, which its rate limit bounds
 * anyway. The operator sees an ordinary tap interface either way.
 *
 * The device is owned (rte_eth_dev_owner_set), so that it is no port of
 * the gateway: RTE_ETH_FOREACH_DEV, the workers' queues and the port
 * counters never see it.
 *
 * ARP and ND: the workers hand replies and advertisements up, and a copy
 * of each request and solicitation for us (the gateway answers the
 * original), so the kernel's neighbour table fills as Linux' would; the
 * kernel's own ARP replies and Neighbour Advertisements are dropped here
 * (punt_kernel_answer): the gateway is the one that answers for its
 * addresses, once, and the kernel does no duplicate address detection on
 * them (accept_dad 0, addresses added nodad).
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/if_addr.h>

#include <rte_arp.h>
#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>

#include "fou_ctl.h"
#include "fou_fwd.h"
#include "fou_ndisc.h"
#include "fou_punt.h"

#define FOU_PUNT_DESC 256	/* the interface's RX and TX descriptors */
#define FOU_PUNT_ROUNDS 8	/* bursts each way per service round, at most */

/* One port's kernel interface. */
struct fou_punt_port {
	bool set;
	bool started;
	struct fou_punt_conf conf;	/* ifname filled in */
	char vdev[32];			/* the net_tap device's name */
	uint16_t dev;			/* its ethdev port */
	int ifindex;
	/* what the interface has, as last given to it */
	struct rte_ether_addr mac;
	uint16_t mtu;
	unsigned int naddr;
	struct fou_ip addr[FOU_MAX_ADDRS];
	bool warned;			/* a netlink failure was logged */
};

struct fou_punt_ctl {
	uint64_t owner;			/* ethdev owner id of the devices */
	bool owner_set;
	struct fou_punt_port p[RTE_MAX_ETHPORTS];
	struct fou_addr_info list[FOU_MAX_ADDRS];	/* scratch for the sync */
};

void
fou_punt_conf_default(struct fou_punt_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->rate = FOU_PUNT_RATE_DEFAULT;
	c->burst = FOU_PUNT_BURST_DEFAULT;
}

static bool
fou_punt_ifname_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (n == 0 || n >= IFNAMSIZ || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return false;
	for (i = 0; i < n; i++)
		if (s[i] <= ' ' || s[i] == '/' || s[i] == ':' || s[i] == ',' || s[i] == '=' ||
		    s[i] >= 0x7f)
			return false;
	return true;
}

int
fou_punt_set(struct fou_gw *gw, uint16_t port, const struct fou_punt_conf *c,
	     struct fou_err *err)
{
	struct fou_punt_conf conf = *c;
	struct fou_punt_ctl *pc;
	unsigned int i;
	int ret;

	ret = fou_iface_check(gw, port, err);
	if (ret < 0)
		return ret;
	if (gw->ports_running) {
		fou_err_set(err, "a kernel interface is made at start only (--punt, a config file's punt = ...)");
		return -EBUSY;
	}
	if (conf.ifname[0] == '\0')
		snprintf(conf.ifname, sizeof(conf.ifname), FOU_PUNT_IFNAME_DEFAULT, port);
	if (!fou_punt_ifname_ok(conf.ifname)) {
		fou_err_set(err, "'%s' is not an interface name (1-15 characters, no '/', ':', ',', '=' or spaces)",
			    conf.ifname);
		return -EINVAL;
	}
	if (conf.rate != 0 && conf.burst == 0) {
		fou_err_set(err, "a rate limit needs a burst of at least 1");
		return -EINVAL;
	}
	if (gw->punt == NULL) {
		/* in DPDK memory, as the gateway that points to it: what only
		 * DPDK memory points to looks leaked to LeakSanitizer */
		gw->punt = rte_zmalloc("fou_punt", sizeof(*gw->punt), 0);
		if (gw->punt == NULL) {
			fou_err_set(err, "out of memory");
			return -ENOMEM;
		}
	}
	pc = gw->punt;
	if (pc->p[port].set) {
		fou_err_set(err, "port %u has a kernel interface already (%s)", port,
			    pc->p[port].conf.ifname);
		return -EEXIST;
	}
	for (i = 0; i < RTE_MAX_ETHPORTS; i++) {
		if (pc->p[i].set && strcmp(pc->p[i].conf.ifname, conf.ifname) == 0) {
			fou_err_set(err, "interface %s is port %u's already", conf.ifname, i);
			return -EEXIST;
		}
	}
	pc->p[port].set = true;
	pc->p[port].conf = conf;
	gw->punt_limit[port] = (uint64_t)conf.rate << 32 | conf.burst;
	return 0;
}

int
fou_punt_del(struct fou_gw *gw, uint16_t port, struct fou_err *err)
{
	int ret;

	ret = fou_iface_check(gw, port, err);
	if (ret < 0)
		return ret;
	if (gw->ports_running) {
		fou_err_set(err, "a kernel interface goes when the gateway stops");
		return -EBUSY;
	}
	if (gw->punt == NULL || !gw->punt->p[port].set) {
		fou_err_set(err, "port %u has no kernel interface", port);
		return -ENOENT;
	}
	memset(&gw->punt->p[port], 0, sizeof(gw->punt->p[port]));
	gw->punt_limit[port] = 0;
	return 0;
}

unsigned int
fou_punt_list(const struct fou_gw *gw, struct fou_punt_info *out, unsigned int n)
{
	unsigned int port, k = 0;

	if (gw->punt == NULL)
		return 0;
	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		const struct fou_punt_port *p = &gw->punt->p[port];

		if (!p->set)
			continue;
		if (k < n && out != NULL) {
			memset(&out[k], 0, sizeof(out[k]));
			out[k].port = (uint16_t)port;
			out[k].conf = p->conf;
			out[k].ifindex = p->started ? p->ifindex : 0;
			out[k].dev_port = p->dev;
		}
		k++;
	}
	return k;
}

/* --- rtnetlink: the interface's addresses ---------------------------------- */

struct fou_nl_req {
	struct nlmsghdr n;
	struct ifaddrmsg a;
	char attrs[64];
};

static void
fou_nl_attr(struct fou_nl_req *r, uint16_t type, const void *data, uint16_t len)
{
	struct rtattr *rta = (struct rtattr *)((char *)r + NLMSG_ALIGN(r->n.nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = (unsigned short)RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), data, len);
	r->n.nlmsg_len = NLMSG_ALIGN(r->n.nlmsg_len) + RTA_ALIGN(rta->rta_len);
}

/* `ip addr add|del ADDR/PLEN dev IFINDEX [nodad]`: 0 or -errno. */
static int
fou_nl_addr(int ifindex, const struct fou_ip *ip, bool add)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct fou_nl_req req;
	char buf[512];
	const uint16_t alen = ip->family == AF_INET ? 4 : 16;
	const void *a = ip->family == AF_INET ? (const void *)&ip->v4 : (const void *)ip->v6;
	ssize_t n;
	int fd, ret;

	memset(&req, 0, sizeof(req));
	req.n.nlmsg_len = NLMSG_LENGTH(sizeof(req.a));
	req.n.nlmsg_type = add ? RTM_NEWADDR : RTM_DELADDR;
	req.n.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (add ? NLM_F_CREATE | NLM_F_REPLACE : 0);
	req.n.nlmsg_seq = 1;
	req.a.ifa_family = ip->family;
	req.a.ifa_prefixlen = ip->plen;
	req.a.ifa_index = (unsigned int)ifindex;
	req.a.ifa_scope = RT_SCOPE_UNIVERSE;
	if (ip->family == AF_INET6)
		req.a.ifa_flags = IFA_F_NODAD;
	if (ip->family == AF_INET)
		fou_nl_attr(&req, IFA_LOCAL, a, alen);
	fou_nl_attr(&req, IFA_ADDRESS, a, alen);

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	if (sendto(fd, &req, req.n.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	n = recv(fd, buf, sizeof(buf), 0);
	ret = n < 0 ? -errno : -EPROTO;
	if (n >= (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr))) {
		const struct nlmsghdr *h = (const struct nlmsghdr *)buf;

		if (h->nlmsg_type == NLMSG_ERROR)
			ret = ((const struct nlmsgerr *)NLMSG_DATA(h))->error;
	}
	close(fd);
	return ret;
}

/* A sysctl of the interface's, best effort: IPv6 may be off. */
static void
fou_punt_sysctl(const char *ifname, const char *key, const char *val)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/%s", ifname, key);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, val, strlen(val)) < 0)
		FOU_LOG(DEBUG, ctl, "punt: %s: %s", path, strerror(errno));
	close(fd);
}

static bool
fou_ip_eq(const struct fou_ip *a, const struct fou_ip *b)
{
	return a->family == b->family && a->plen == b->plen &&
	       (a->family == AF_INET ? a->v4 == b->v4 : memcmp(a->v6, b->v6, 16) == 0);
}

static bool
fou_ip_in(const struct fou_ip *ip, const struct fou_ip *set, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (fou_ip_eq(ip, &set[i]))
			return true;
	return false;
}

static void
fou_punt_nl(struct fou_punt_port *p, const struct fou_ip *ip, bool add)
{
	int ret = fou_nl_addr(p->ifindex, ip, add);

	if (ret == 0 || (add && ret == -EEXIST) ||
	    (!add && (ret == -EADDRNOTAVAIL || ret == -ENOENT || ret == -ENODEV)))
		FOU_LOG(DEBUG, ctl, "punt: %s %s/%u %s %s", add ? "added" : "deleted", FOU_IPSTR(ip),
			ip->plen, add ? "to" : "from", p->conf.ifname);
	else
		FOU_LOG(WARNING, ctl, "punt: cannot %s %s/%u %s %s: %s", add ? "add" : "delete",
			FOU_IPSTR(ip), ip->plen, add ? "to" : "from", p->conf.ifname,
			strerror(-ret));
}

/*
 * The interface follows its port: MAC address, MTU and the port's
 * addresses, whoever changed them (the command line, a config file, a
 * telemetry command). Under the control lock.
 */
static void
fou_punt_sync(struct fou_gw *gw, uint16_t port, struct fou_punt_port *p)
{
	struct fou_punt_ctl *pc = gw->punt;
	struct fou_ip want[FOU_MAX_ADDRS];
	struct rte_ether_addr mac;
	unsigned int n, i, nw = 0;
	uint16_t mtu;
	int ret;

	if (fou_iface_get(gw, port, &mac, &mtu) == 0) {
		if (!rte_is_same_ether_addr(&mac, &p->mac)) {
			ret = rte_eth_dev_default_mac_addr_set(p->dev, &mac);
			if (ret != 0)
				FOU_LOG(WARNING, ctl, "punt: cannot give %s the MAC address of port %u: %s",
					p->conf.ifname, port, rte_strerror(-ret));
			p->mac = mac;
		}
		if (mtu != p->mtu) {
			ret = rte_eth_dev_set_mtu(p->dev, mtu);
			if (ret != 0)
				FOU_LOG(WARNING, ctl, "punt: cannot give %s the MTU %u of port %u: %s",
					p->conf.ifname, mtu, port, rte_strerror(-ret));
			p->mtu = mtu;
		}
	}
	n = fou_addr_list(gw, pc->list, RTE_DIM(pc->list));
	for (i = 0; i < n && i < RTE_DIM(pc->list); i++)
		if (pc->list[i].tunnel[0] == '\0' && pc->list[i].port == port)
			want[nw++] = pc->list[i].ip;
	for (i = 0; i < p->naddr; i++)
		if (!fou_ip_in(&p->addr[i], want, nw))
			fou_punt_nl(p, &p->addr[i], false);
	for (i = 0; i < nw; i++)
		if (!fou_ip_in(&want[i], p->addr, p->naddr))
			fou_punt_nl(p, &want[i], true);
	memcpy(p->addr, want, nw * sizeof(want[0]));
	p->naddr = nw;
}

/* --- start, service, stop -------------------------------------------------- */

static int
fou_punt_dev_start(struct fou_gw *gw, uint16_t port, struct fou_punt_port *p,
		   struct rte_mempool *pool, struct fou_err *err)
{
	struct fou_punt_ctl *pc = gw->punt;
	struct rte_eth_conf conf;
	struct rte_ether_addr mac;
	char args[96], macs[RTE_ETHER_ADDR_FMT_SIZE], name[RTE_RING_NAMESIZE];
	struct rte_ring *ring;
	uint16_t mtu;
	int ret;

	fou_iface_get(gw, port, &mac, &mtu);
	rte_ether_format_addr(macs, sizeof(macs), &mac);
	snprintf(p->vdev, sizeof(p->vdev), "net_tap_fou%u", port);
	snprintf(args, sizeof(args), "iface=%s,mac=%s", p->conf.ifname, macs);
	ret = rte_eal_hotplug_add("vdev", p->vdev, args);
	if (ret != 0) {
		fou_err_set(err, "port %u: cannot make the kernel interface %s (net_tap: /dev/net/tun and CAP_NET_ADMIN needed, or the name is taken): %s",
			    port, p->conf.ifname, rte_strerror(-ret));
		return ret;
	}
	/* before it comes up: the gateway answers for these addresses (its
	 * link-local one too, the same), and it is a router */
	fou_punt_sysctl(p->conf.ifname, "accept_dad", "0");
	fou_punt_sysctl(p->conf.ifname, "router_solicitations", "0");
	ret = rte_eth_dev_get_port_by_name(p->vdev, &p->dev);
	if (ret == 0 && !pc->owner_set) {
		ret = rte_eth_dev_owner_new(&pc->owner);
		pc->owner_set = ret == 0;
	}
	if (ret == 0) {
		struct rte_eth_dev_owner o = { .id = pc->owner };

		snprintf(o.name, sizeof(o.name), "dpdk-fou punt");
		ret = rte_eth_dev_owner_set(p->dev, &o);
	}
	/* from here on stop() takes the device down */
	p->started = true;
	memset(&conf, 0, sizeof(conf));
	if (ret == 0)
		ret = rte_eth_dev_configure(p->dev, 1, 1, &conf);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(p->dev, 0, FOU_PUNT_DESC, SOCKET_ID_ANY, NULL, pool);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(p->dev, 0, FOU_PUNT_DESC, SOCKET_ID_ANY, NULL);
	if (ret == 0)
		ret = rte_eth_dev_set_mtu(p->dev, mtu);
	if (ret == 0)
		ret = rte_eth_dev_start(p->dev);
	if (ret != 0) {
		fou_err_set(err, "port %u: cannot set up the kernel interface %s: %s", port,
			    p->conf.ifname, rte_strerror(-ret));
		return ret;
	}
	p->mac = mac;
	p->mtu = mtu;
	p->ifindex = (int)if_nametoindex(p->conf.ifname);
	if (p->ifindex == 0) {
		fou_err_set(err, "port %u: the kernel interface %s is not there: %s", port,
			    p->conf.ifname, strerror(errno));
		return -ENODEV;
	}
	snprintf(name, sizeof(name), "fou_punt_%u_%p", port, (void *)gw);
	ring = rte_ring_create(name, FOU_PUNT_RING, SOCKET_ID_ANY, RING_F_SC_DEQ);
	if (ring == NULL) {
		fou_err_set(err, "port %u: cannot allocate the ring to %s: %s", port,
			    p->conf.ifname, rte_strerror(rte_errno));
		return -ENOMEM;
	}
	__atomic_store_n(&gw->punt_ring[port], ring, __ATOMIC_RELEASE);
	fou_gw_lock(gw);
	fou_punt_sync(gw, port, p);
	fou_gw_unlock(gw);
	return 0;
}

int
fou_punt_start(struct fou_gw *gw, struct rte_mempool *pool, struct fou_err *err)
{
	unsigned int port;
	int ret;

	if (gw->punt == NULL)
		return 0;
	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		struct fou_punt_port *p = &gw->punt->p[port];

		if (!p->set || p->started)
			continue;
		ret = fou_punt_dev_start(gw, (uint16_t)port, p, pool, err);
		if (ret != 0)
			return ret;
	}
	return 0;
}

/* What the workers handed up goes to the kernel interface. */
static void
fou_punt_to_kernel(struct fou_lcore_stats *st, struct rte_ring *ring, uint16_t dev)
{
	struct rte_mbuf *pkts[FOU_BURST];
	unsigned int n, round;
	uint16_t sent, i;

	for (round = 0; round < FOU_PUNT_ROUNDS; round++) {
		n = rte_ring_sc_dequeue_burst(ring, (void **)pkts, FOU_BURST, NULL);
		if (n == 0)
			return;
		for (i = 0; i < n; i++)
			fou_mbuf_flags_reset(pkts[i]);
		sent = rte_eth_tx_burst(dev, 0, pkts, (uint16_t)n);
		FOU_STAT_ADD(st->punt[FOU_PUNT_TO_KERNEL], sent);
		if (sent < n) {
			FOU_STAT_ADD(st->punt[FOU_PUNT_TO_KERNEL_FAILED], n - sent);
			rte_pktmbuf_free_bulk(pkts + sent, n - sent);
		}
	}
}

/*
 * What the kernel sent, unless the gateway does it itself (see above) or
 * it cannot leave through the port: the reason it is dropped for, or
 * FOU_FWD.
 */
static unsigned int
fou_punt_from_kernel_check(const struct rte_mbuf *m, uint16_t mtu)
{
	const uint32_t len = rte_pktmbuf_pkt_len(m);
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t off = RTE_ETHER_HDR_LEN;
	uint16_t et;

	if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN)
		return FOU_DROP_PUNT_DOWN_BAD;
	et = (uint16_t)(p[12] << 8 | p[13]);
	if (et == RTE_ETHER_TYPE_VLAN && rte_pktmbuf_data_len(m) >= off + 4) {
		et = (uint16_t)(p[16] << 8 | p[17]);
		off += 4;
	}
	if (len - off > mtu)
		return FOU_DROP_PUNT_DOWN_BAD;
	if (et == RTE_ETHER_TYPE_ARP && rte_pktmbuf_data_len(m) >= off + sizeof(struct rte_arp_hdr)) {
		const struct rte_arp_hdr *arp = (const struct rte_arp_hdr *)(p + off);

		if (arp->arp_opcode == rte_cpu_to_be_16(RTE_ARP_OP_REPLY))
			return FOU_DROP_PUNT_KERNEL_ANSWER;
	}
	if (et == RTE_ETHER_TYPE_IPV6 && rte_pktmbuf_data_len(m) > off + 40 &&
	    p[off + 6] == IPPROTO_ICMPV6 && p[off + 40] == FOU_NDISC_NA)
		return FOU_DROP_PUNT_KERNEL_ANSWER;
	return FOU_FWD;
}

/* A started worker's inject ring, the first (fou_neigh.c sends there too:
 * both on the control thread, the ring's one producer). */
static struct rte_ring *
fou_punt_inject_ring(const struct fou_gw *gw)
{
	unsigned int l;

	for (l = 0; l < RTE_MAX_LCORE; l++) {
		struct rte_ring *r = __atomic_load_n(&gw->inject[l], __ATOMIC_ACQUIRE);

		if (r != NULL)
			return r;
	}
	return NULL;
}

/* What the kernel sent goes out of port as it wrote it. */
static void
fou_punt_from_kernel(struct fou_gw *gw, struct fou_lcore_stats *st, uint16_t port,
		     const struct fou_punt_port *p)
{
	struct rte_mbuf *pkts[FOU_BURST];
	struct rte_ring *inject = fou_punt_inject_ring(gw);
	unsigned int round;
	uint16_t n, i;

	for (round = 0; round < FOU_PUNT_ROUNDS; round++) {
		n = rte_eth_rx_burst(p->dev, 0, pkts, FOU_BURST);
		if (n == 0)
			return;
		FOU_STAT_ADD(st->punt[FOU_PUNT_FROM_KERNEL], n);
		for (i = 0; i < n; i++) {
			struct rte_mbuf *m = pkts[i];
			unsigned int r = fou_punt_from_kernel_check(m, p->mtu);

			if (r == FOU_FWD) {
				fou_mbuf_flags_reset(m);
				m->port = port;
				if (inject != NULL && rte_ring_sp_enqueue(inject, m) == 0)
					continue;
				r = FOU_DROP_PUNT_DOWN_BAD;
			}
			FOU_STAT_ADD(st->drop[r], 1);
			rte_pktmbuf_free(m);
		}
	}
}

void
fou_punt_service(struct fou_lcore *ctl, uint64_t now __rte_unused)
{
	struct fou_gw *gw = ctl->gw;
	unsigned int port;

	if (gw->punt == NULL)
		return;
	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		struct fou_punt_port *p = &gw->punt->p[port];
		struct rte_ring *ring = gw->punt_ring[port];

		if (!p->started || ring == NULL)
			continue;
		fou_punt_to_kernel(ctl->st, ring, p->dev);
		fou_punt_from_kernel(gw, ctl->st, (uint16_t)port, p);
		fou_gw_lock(gw);
		fou_punt_sync(gw, (uint16_t)port, p);
		fou_gw_unlock(gw);
	}
}

void
fou_punt_stop(struct fou_gw *gw)
{
	struct fou_lcore_stats *st;
	unsigned int port;

	if (gw == NULL || gw->punt == NULL)
		return;
	st = &gw->stats[FOU_LCORE_CONTROL];
	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		struct fou_punt_port *p = &gw->punt->p[port];
		struct rte_ring *ring = gw->punt_ring[port];

		if (!p->started)
			continue;
		if (ring != NULL) {
			/* what the workers handed up last still goes */
			while (!rte_ring_empty(ring))
				fou_punt_to_kernel(st, ring, p->dev);
			gw->punt_ring[port] = NULL;
			rte_ring_free(ring);
		}
		rte_eth_dev_stop(p->dev);
		rte_eth_dev_close(p->dev);
		rte_eal_hotplug_remove("vdev", p->vdev);
		p->started = false;
		p->naddr = 0;
	}
}

void
fou_punt_free(struct fou_gw *gw)
{
	fou_punt_stop(gw);
	rte_free(gw->punt);
	gw->punt = NULL;
}
