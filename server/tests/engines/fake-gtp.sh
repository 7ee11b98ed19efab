#!/bin/sh
# A misbehaving GTP engine for the bot bridge's tests. It answers every setup command with success and
# misbehaves on `genmove` as $1 says: illegal (always A1, which is occupied from its second move on),
# garbage (not a GTP answer), hang (never answers), exit (dies).
mode="$1"
while IFS= read -r line; do
    case "$line" in
        genmove*)
            case "$mode" in
                illegal) printf '= A1\n\n' ;;
                garbage) printf 'banana\n\n' ;;
                hang) sleep 3600 ;;
                exit) exit 3 ;;
            esac
            ;;
        final_status_list*) printf '= \n\n' ;;
        name) printf '= fake\n\n' ;;
        *) printf '= \n\n' ;;
    esac
done
