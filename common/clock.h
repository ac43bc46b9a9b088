/* SPDX-License-Identifier: Apache-2.0 */
/* A monotonic clock in milliseconds, for deadlines and durations. */
#pragma once

/* Milliseconds since an arbitrary point (CLOCK_MONOTONIC): for deadlines and durations. */
long clock_ms(void);
/* The same clock in microseconds: a call's duration, for the call record. */
long long clock_us(void);
