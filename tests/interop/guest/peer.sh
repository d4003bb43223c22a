# SPDX-License-Identifier: BSD-3-Clause
#
# The guest's side of the interop test (busybox ash), sourced by /init after
# /interop/guest.conf (addresses, MACs, ports: written by test_linux_peer.py).
# The host calls these functions over the control port, e.g. "tunnels 1".

# Debian's busybox-static runs its own applet for a plain `ip` (it is built
# with FEATURE_SH_STANDALONE), and that applet knows neither `ip fou` nor
# `encap`: a function wins over applets, so send every `ip` to iproute2.
ip() { /sbin/ip "$@"; }

# must CMD...: run CMD; a failure is reported on the console and returned.
must() {
    "$@" || {
        local rc=$?
        echo "@@GUEST FAILED rc=$rc: $*"
        return $rc
    }
}

# Only the test's packets on the wire: no IPv6 autoconfiguration (router
# solicitations, DAD, link-local addresses on the tunnels).
peer_sysctls() {
    local c
    for c in all default; do
        echo 0 > /proc/sys/net/ipv6/conf/$c/accept_dad
        echo 0 > /proc/sys/net/ipv6/conf/$c/accept_ra
        echo 0 > /proc/sys/net/ipv6/conf/$c/router_solicitations
    done
    echo 1 > /proc/sys/net/ipv6/conf/default/addr_gen_mode
}

# The outer network: IPv4, and IPv6 for the IPv6-underlay tunnels (no
# link-local address, DAD or router solicitation: the NIC existed before
# peer_sysctls changed the defaults, so its own settings are set here, before
# IPv6 goes on). Joining its addresses' solicited-node groups sends MLD
# reports, repeated at random within the unsolicited report interval (1 s by
# default): 1 ms here, and mld_quiet waits for the last before the guest is
# ready (the first dpdk-fou run would drop one: its source is ::). dpdk-fou
# is resolved with ARP and ND like any neighbour (no static entry).
peer_outer() {
    local d dev="" a
    for d in /sys/class/net/*; do
        [ -e "$d/device" ] && { dev=${d##*/}; break; }
    done
    [ -n "$dev" ] || { echo "@@GUEST FAILED no network device"; return 1; }
    echo 1 > /proc/sys/net/ipv6/conf/$dev/addr_gen_mode
    echo 0 > /proc/sys/net/ipv6/conf/$dev/accept_dad
    echo 0 > /proc/sys/net/ipv6/conf/$dev/accept_ra
    echo 0 > /proc/sys/net/ipv6/conf/$dev/router_solicitations
    echo 1 > /proc/sys/net/ipv6/conf/$dev/mldv1_unsolicited_report_interval
    echo 1 > /proc/sys/net/ipv6/conf/$dev/mldv2_unsolicited_report_interval
    echo 0 > /proc/sys/net/ipv6/conf/$dev/disable_ipv6
    must ip link set lo up &&
    must ip link set "$dev" up &&
    must ip addr add "$GUEST_IP/$OUTER_PLEN" dev "$dev" || return 1
    for a in $GUEST_IP6; do
        must ip -6 addr add "$a/64" dev "$dev" nodad || return 1
    done
    echo "$dev" > /tmp/outer-dev
    echo "@@GUEST OUTER dev=$dev mac=$(cat /sys/class/net/$dev/address) ip=$GUEST_IP"
}

# tunnels 0|1: (re)create the three FOU tunnels without or with encap-csum,
# with their addresses and the routes back to the client. Delete and re-add
# rather than `ip link set ... type`, so every run starts from the same
# state whatever the previous one left.
#
# Routes back: one client address cannot be routed through three tunnels at
# once here, so the client uses one source network per tunnel and inner
# family (IPIP_CLIENT, GRE_CLIENT, GRE6_CLIENT, SIT_CLIENT) and each reply
# leaves through the tunnel its request came in by. fou_gre carries IPv4
# and IPv6.
tunnels() {
    local csum=noencap-csum t
    [ "$1" = 1 ] && csum=encap-csum
    for t in ipip gre sit; do
        ip link del "fou_$t" 2>/dev/null
    done
    must ip link add name fou_ipip type ipip remote "$GW_IP" local "$GUEST_IP" ttl "$TTL" \
        encap fou encap-sport auto encap-dport "$IPIP_PORT" $csum &&
    must ip link add name fou_gre type gre remote "$GW_IP" local "$GUEST_IP" ttl "$TTL" \
        encap fou encap-sport auto encap-dport "$GRE_PORT" $csum &&
    must ip link add name fou_sit type sit remote "$GW_IP" local "$GUEST_IP" ttl "$TTL" \
        encap fou encap-sport auto encap-dport "$SIT_PORT" $csum &&
    must ip addr add "$IPIP_GUEST/24" dev fou_ipip &&
    must ip addr add "$GRE_GUEST/24" dev fou_gre &&
    must ip -6 addr add "$GRE6_GUEST/64" dev fou_gre nodad &&
    must ip -6 addr add "$SIT_GUEST/64" dev fou_sit nodad &&
    must ip link set fou_ipip up &&
    must ip link set fou_gre up &&
    must ip link set fou_sit up &&
    must ip route add "$IPIP_CLIENT" dev fou_ipip &&
    must ip route add "$GRE_CLIENT" dev fou_gre &&
    must ip -6 route add "$GRE6_CLIENT" dev fou_gre &&
    must ip -6 route add "$SIT_CLIENT" dev fou_sit || return 1
    echo "@@GUEST TUNNELS encap-csum=$1"
}

# new_tunnels on|off: on replaces the FOU tunnels by the GUE and
# IPv6-underlay ones of the new-tunnels run: /interop/tunnels-new, written by
# the test, has their iproute2 commands (without `ip`), one a line: the
# receive ports (`fou add ...`), then per tunnel `link add`, its address, up
# and the route back to the client. off deletes them and those ports again
# (`tunnels` then brings the FOU tunnels back).
new_tunnels() {
    local t line
    if [ "$1" = off ]; then
        while read -r line; do
            case $line in
                "link add name "*) set -- $line; ip link del "$4" ;;
                "fou add "*-6) set -- $line; ip fou del port "$4" -6 ;;
                "fou add "*) set -- $line; ip fou del port "$4" ;;
            esac
        done < /interop/tunnels-new
        return 0
    fi
    for t in ipip gre sit; do
        ip link del "fou_$t" 2>/dev/null
    done
    while read -r line; do
        must ip $line || return 1
    done < /interop/tunnels-new
    echo "@@GUEST NEW TUNNELS"
}

# narrow_path MTU CSUM: the outer path of the reassembly case. The outer
# link's MTU goes down to MTU and fou_ipip is re-created with nopmtudisc
# (Linux takes it only with ttl inherit) and its old MTU, so an inner packet
# that fits the tunnel leaves as an outer packet without DF that the guest's
# own ip_fragment() cuts to MTU. ip_no_pmtu_disc makes the guest's ping
# send without DF too: ip_tunnel_xmit() copies an inner DF to the outer
# header even with nopmtudisc. "narrow_path off" undoes the link and the
# sysctl; `tunnels` then brings fou_ipip back.
narrow_path() {
    local dev csum=noencap-csum
    dev=$(cat /tmp/outer-dev)
    if [ "$1" = off ]; then
        echo 0 > /proc/sys/net/ipv4/ip_no_pmtu_disc
        must ip link set "$dev" mtu 1500
        return
    fi
    [ "$2" = 1 ] && csum=encap-csum
    ip link del fou_ipip 2>/dev/null
    must ip link set "$dev" mtu "$1" &&
    must ip link add name fou_ipip type ipip remote "$GW_IP" local "$GUEST_IP" ttl inherit \
        nopmtudisc encap fou encap-sport auto encap-dport "$IPIP_PORT" $csum &&
    must ip link set fou_ipip mtu 1472 &&
    must ip addr add "$IPIP_GUEST/24" dev fou_ipip &&
    must ip link set fou_ipip up &&
    must ip route add "$IPIP_CLIENT" dev fou_ipip || return 1
    echo 1 > /proc/sys/net/ipv4/ip_no_pmtu_disc
    ip -d link show fou_ipip
}

peer_setup() {
    peer_sysctls
    peer_outer || return 1
    # Receive side: one kernel UDP socket per port, handing the payload to
    # that IP protocol ("direct" FOU, no GUE header).
    must ip fou add port "$IPIP_PORT" ipproto 4 &&
    must ip fou add port "$GRE_PORT" ipproto 47 &&
    must ip fou add port "$SIT_PORT" ipproto 41 || return 1
    tunnels "$ENCAP_CSUM" || return 1
    # TCP echo server for the transfer checks (one child per connection;
    # busybox nc listens on IPv4 and IPv6).
    nc -ll -p "$ECHO_PORT" -e /bin/cat </dev/null >/dev/null 2>&1 &
    echo "@@GUEST ECHO pid=$! port=$ECHO_PORT"
    mld_quiet
}

# Wait (at most 5 s) until the MLD reports of peer_outer's IPv6 addresses are
# all sent: no new one for half a second. The first dpdk-fou run starts as
# soon as the guest is ready and would drop a late one (source ::).
mld_quiet() {
    local n=-1 i=0 m
    while [ $i -lt 10 ]; do
        m=$(grep Icmp6OutMLDv2Reports /proc/net/snmp6)
        [ "$m" = "$n" ] && return 0
        n=$m
        sleep 0.5
        i=$((i + 1))
    done
}

# The control loop on ttyS1: "TAG COMMAND" in, COMMAND's output and
# "@@END TAG RC" out. "poweroff" ends it (then /init powers off).
serve() {
    local tag cmd
    stty -F "$CTL_TTY" raw -echo || return 1
    exec 3<>"$CTL_TTY"
    echo "@@GUEST SERVING $CTL_TTY"
    while read -r tag cmd <&3; do
        [ "$tag" = poweroff ] && break
        [ -n "$tag" ] || continue
        ( eval "$cmd" ) </dev/null >&3 2>&1
        echo "@@END $tag $?" >&3
    done
    exec 3>&-
}
