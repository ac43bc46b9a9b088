// SPDX-License-Identifier: Apache-2.0
/* placeholder until its owner lands it */
