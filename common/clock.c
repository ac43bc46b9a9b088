// SPDX-License-Identifier: Apache-2.0
/* A monotonic clock in milliseconds (and microseconds), for deadlines and durations. */
#include <time.h>
#include "clock.h"

long clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

long long clock_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}
