/*
 * DIMM health (include/nd_smart.h): the Intel _DSM function 1 payload
 * decoded as ndctl 76.1 reads it, its `list -H` "health" object, and the
 * boot line's summary. Which fields appear, their order and their words
 * follow ndctl's util_dimm_health_to_json: health_state (fatal over
 * critical over non-critical, else ok), temperature_celsius,
 * controller_temperature_celsius, spares_percentage, the three alarm
 * booleans when the alarm flags are valid, life_used_percentage,
 * shutdown_state, shutdown_count. ndctl's threshold fields come from
 * function 2, which pmemk does not call (nor does the platform offer it).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "nd_json.h"
#include "nd_smart.h"
#include "unaligned.h"

int nd_smart_decode(const u8 *out, size_t len, struct nd_smart *s, char *why, size_t why_len)
{
	const u8 *p = out + 4;
	u32 status;

	memset(s, 0, sizeof(*s));
	if (len < 4) {
		snprintf(why, why_len, "%zu bytes, no status", len);
		return -EINVAL;
	}
	status = get_le32(out);
	if (status) {
		snprintf(why, why_len, "status %#x", status);
		return -EIO;
	}
	if (len < ND_SMART_OUT_LEN) {
		snprintf(why, why_len, "%zu bytes, want %u (status and payload)", len,
			 (unsigned int)ND_SMART_OUT_LEN);
		return -EINVAL;
	}
	s->flags = get_le32(p);
	s->health = p[8];
	s->spares = p[9];
	s->life_used = p[10];
	s->alarm_flags = p[11];
	s->media_temp = get_le16(p + 12);
	s->ctrl_temp = get_le16(p + 14);
	s->shutdown_count = get_le32(p + 16);
	s->shutdown_state = p[31];
	s->known = true;
	return 0;
}

const char *nd_smart_health_name(const struct nd_smart *s)
{
	if (!s->known || !(s->flags & ND_SMART_V_HEALTH))
		return NULL;
	if (s->health & ND_SMART_FATAL)
		return "fatal";
	if (s->health & ND_SMART_CRITICAL)
		return "critical";
	if (s->health & ND_SMART_NON_CRITICAL)
		return "non-critical";
	return "ok";
}

/*
 * ndctl_decode_smart_temperature gives (raw & 0x7fff) / 16, negated when
 * bit 15 is set; json-c prints the double with %.17g and ".0" when that
 * looks like an integer. Sixteenths have at most four decimals, so the
 * exact digits, trailing zeros dropped, are what %.17g prints.
 */
void nd_smart_temp_str(u16 raw, char buf[16])
{
	unsigned int mag = raw & 0x7fffu;
	unsigned int frac = (mag % 16) * 625;	/* ten-thousandths: 0..9375 */
	char d[5] = { (char)('0' + frac / 1000), (char)('0' + frac / 100 % 10),
		      (char)('0' + frac / 10 % 10), (char)('0' + frac % 10), 0 };

	for (int i = 3; i > 0 && d[i] == '0'; i--)
		d[i] = 0;
	snprintf(buf, 16, "%s%u.%s", raw & 0x8000u ? "-" : "", mag / 16, d);
}

bool nd_smart_attention(const struct nd_smart *s)
{
	const char *h = nd_smart_health_name(s);

	return (h && strcmp(h, "ok") != 0) ||
	       (s->known && (s->flags & ND_SMART_V_SHUTDOWN) && s->shutdown_state);
}

/* Append one item to buf[n] at *at, ", " between items; the line is cut at n. */
static void add(char *buf, size_t n, size_t *at, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (*at && *at + 2 < n) {
		memcpy(buf + *at, ", ", 3);
		*at += 2;
	}
	if (*at >= n - 1)
		return;
	va_start(ap, fmt);
	k = vsnprintf(buf + *at, n - *at, fmt, ap);
	va_end(ap);
	*at = k < 0 ? *at : MIN(n - 1, *at + (size_t)k);
}

void nd_smart_summary(const struct nd_smart *s, char *buf, size_t n)
{
	const char *h = nd_smart_health_name(s);
	char t[16];
	size_t at = 0;

	if (!n)
		return;
	buf[0] = 0;
	if (!s->known) {
		snprintf(buf, n, "health unknown");
		return;
	}
	if (h)
		add(buf, n, &at, "health %s", h);
	if (s->flags & ND_SMART_V_MTEMP) {
		nd_smart_temp_str(s->media_temp, t);
		add(buf, n, &at, "media %s C", t);
	}
	if (s->flags & ND_SMART_V_CTEMP) {
		nd_smart_temp_str(s->ctrl_temp, t);
		add(buf, n, &at, "controller %s C", t);
	}
	if (s->flags & ND_SMART_V_SPARES)
		add(buf, n, &at, "spares %u%%", s->spares);
	if (s->flags & ND_SMART_V_USED)
		add(buf, n, &at, "life used %u%%", s->life_used);
	if (s->flags & ND_SMART_V_SHUTDOWN)
		add(buf, n, &at, "shutdown %s", s->shutdown_state ? "dirty" : "clean");
	if (s->flags & ND_SMART_V_SHUTDOWN_COUNT)
		add(buf, n, &at, "%u unsafe shutdowns", s->shutdown_count);
}

void nd_smart_json(struct nd_json *j, const struct nd_smart *s)
{
	const char *h = nd_smart_health_name(s);
	char t[16];

	nd_json_open(j, "health", '{');
	if (!s->known) {
		nd_json_str(j, "health_state", "unknown");
		nd_json_close(j, '}');
		return;
	}
	if (h)
		nd_json_str(j, "health_state", h);
	if (s->flags & ND_SMART_V_MTEMP) {
		nd_smart_temp_str(s->media_temp, t);
		nd_json_raw(j, "temperature_celsius", t);
	}
	if (s->flags & ND_SMART_V_CTEMP) {
		nd_smart_temp_str(s->ctrl_temp, t);
		nd_json_raw(j, "controller_temperature_celsius", t);
	}
	if (s->flags & ND_SMART_V_SPARES)
		nd_json_int(j, "spares_percentage", s->spares);
	if (s->flags & ND_SMART_V_ALARM) {
		nd_json_bool(j, "alarm_temperature", s->alarm_flags & ND_SMART_MTEMP_TRIP);
		nd_json_bool(j, "alarm_controller_temperature", s->alarm_flags & ND_SMART_CTEMP_TRIP);
		nd_json_bool(j, "alarm_spares", s->alarm_flags & ND_SMART_SPARE_TRIP);
	}
	if (s->flags & ND_SMART_V_USED)
		nd_json_int(j, "life_used_percentage", s->life_used);
	if (s->flags & ND_SMART_V_SHUTDOWN)
		nd_json_str(j, "shutdown_state", s->shutdown_state ? "dirty" : "clean");
	if (s->flags & ND_SMART_V_SHUTDOWN_COUNT)
		nd_json_int(j, "shutdown_count", s->shutdown_count);
	nd_json_close(j, '}');
}
