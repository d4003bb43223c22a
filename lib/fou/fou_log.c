/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rte_log types of fou.h, registered before main() like a DPDK
 * library's: EAL's --log-level=fou.*:debug (or fou.neigh:debug, ...)
 * then finds them, and every type starts at INFO.
 */
#include "fou.h"

#define RTE_LOG_DEFAULT_LOGTYPE fou

RTE_LOG_REGISTER_SUFFIX(fou_logtype_ctl, ctl, INFO);
RTE_LOG_REGISTER_SUFFIX(fou_logtype_telemetry, telemetry, INFO);
RTE_LOG_REGISTER_SUFFIX(fou_logtype_neigh, neigh, INFO);
RTE_LOG_REGISTER_SUFFIX(fou_logtype_port, port, INFO);
RTE_LOG_REGISTER_SUFFIX(fou_logtype_app, app, INFO);
