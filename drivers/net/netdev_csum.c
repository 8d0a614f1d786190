/*
 * Checksum offload's part that belongs to no driver: the Internet checksum
 * (RFC 1071) and readying an Ethernet frame's IPv4 and TCP headers for a
 * device that inserts their checksums (include/netdev.h, struct
 * netdev_csum). Pure: the host unit tests run it as the kernel does.
 */
#include <errno.h>

#include "netdev.h"

#define ETH_HLEN 14
#define ETH_P_IPV4 0x0800
#define IP_PROTO_TCP 6
#define IP_CSUM_OFF 10		/* the header checksum within the IPv4 header */
#define TCP_HLEN_MIN 20
#define TCP_CSUM_OFF 16		/* the checksum within the TCP header */

static u16 get_be16(const u8 *p)
{
	return (u16)(p[0] << 8 | p[1]);
}

static void put_be16(u8 *p, u16 v)
{
	p[0] = (u8)(v >> 8);
	p[1] = (u8)v;
}

u32 netdev_csum_add(u32 sum, const void *data, u32 len)
{
	const u8 *b = data;
	u64 s = sum;

	for (; len >= 2; b += 2, len -= 2)
		s += get_be16(b);
	if (len)
		s += (u32)b[0] << 8;	/* an odd last byte, padded with a zero */
	while (s >> 32)
		s = (s & 0xFFFFFFFF) + (s >> 32);
	return (u32)s;
}

u16 netdev_csum_fold(u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return (u16)sum;
}

/* The TCP pseudo-header (RFC 793 §3.1): source, destination, zero, protocol, TCP length. */
static u16 tcp_pseudo_sum(const u8 *ip, u16 tcp_len)
{
	u32 sum = netdev_csum_add(0, ip + 12, 8);

	return netdev_csum_fold(sum + IP_PROTO_TCP + tcp_len);
}

int netdev_csum_prepare(u8 *frame, u32 len, u32 tot_len, struct netdev_csum *csum)
{
	if (len > tot_len || len < ETH_HLEN)
		return -EINVAL;
	if (get_be16(frame + 12) != ETH_P_IPV4)
		return -ENOENT;
	u8 *ip = frame + ETH_HLEN;
	u16 ip_len = (u16)((ip[0] & 0x0F) * 4);
	if (len < ETH_HLEN + 20 || ip[0] >> 4 != 4 || ip_len < 20 || ETH_HLEN + ip_len > len)
		return -EINVAL;
	u16 total = get_be16(ip + 2);
	if (total < ip_len || ETH_HLEN + total > tot_len)
		return -EINVAL;
	bool fragment = get_be16(ip + 6) & 0x3FFF;	/* more fragments, or an offset */
	bool tcp = ip[9] == IP_PROTO_TCP && !fragment;
	u16 tcp_start = (u16)(ETH_HLEN + ip_len);
	/* TCP: its checksum field within len; the device sums to the frame's end, so no padding. */
	if (tcp && (total - ip_len < TCP_HLEN_MIN || tcp_start + TCP_CSUM_OFF + 2 > len ||
		    ETH_HLEN + total != tot_len))
		return -EINVAL;
	put_be16(ip + IP_CSUM_OFF, 0);
	*csum = (struct netdev_csum){ .ip_start = ETH_HLEN, .ip_len = ip_len };
	if (tcp) {
		put_be16(frame + tcp_start + TCP_CSUM_OFF, tcp_pseudo_sum(ip, (u16)(total - ip_len)));
		csum->tcp = true;
		csum->tcp_start = tcp_start;
		csum->tcp_sum = (u16)(tcp_start + TCP_CSUM_OFF);
	}
	return 0;
}
