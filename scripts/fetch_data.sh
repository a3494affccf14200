#!/usr/bin/env bash
# Fetches the data sets vmcap's tests, benchmarks and README commands read from ../shared/data
# (Azure V1 flavor traces, Huawei-East-1, the NetSolver VDC instances), each file from its upstream
# repository at a pinned commit, and verifies every file against the SHA-256 recorded below (taken
# from the shared copy the tests were measured on). A file whose checksum differs is refused: it is
# never moved into place, the script prints one line naming it and exits 2. Files already in place
# with the right checksum are kept; each new file is written beside its target and renamed into
# place once verified.
#
# Usage: scripts/fetch_data.sh [--to DIR] [--from MIRROR] [--dataset NAME]...
#   --to DIR        where the data sets go (default: $VMCAP_DATA_DIR if set, else ../shared/data
#                   beside this checkout, where the tests and `vmcap snapshot --trace` look)
#   --from MIRROR   copy from a local directory laid out like ../shared/data (an offline mirror)
#                   instead of downloading; the same checksums are verified
#   --dataset NAME  only this data set (azure-v1-flavor-traces, huawei-east-1, netsolver-vdc);
#                   repeatable; default: all three
# Exit status: 0 all verified; 1 a download failed; 2 bad option, a file missing from the mirror
# or a checksum mismatch.
#
# Downloads use curl from raw.githubusercontent.com. Only --from is tested here (tests/fetch_data_test.sh,
# a CTest test, against ../shared/data): the machine the script was written on reaches only
# Debian's and npm's package registries, so the download path itself has not been run.
#
# Not upstream, so copied only with --from: each data set's README.md (our notes on source, licence
# and format) and netsolver-vdc/published_allocation_results.csv (NetSolver's published counts,
# parsed by us from the authors' logs under figures/*/<solver>/timelogs/ of the same commit; read by
# scripts/netsolver_table.sh only).
#
# Licences (printed for each data set fetched): Azure V1 traces CC BY 4.0 (processing code MIT);
# Huawei-East-1 CC BY-NC 4.0: NON-COMMERCIAL use only; NetSolver instances MIT.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '/^# Usage:/,/^# or a checksum mismatch/s/^# \{0,1\}//p' "$0" >&2; }
die() { echo "fetch_data: $1" >&2; exit "${2:-2}"; }

DEST=${VMCAP_DATA_DIR:-$(cd .. && pwd)/shared/data}
FROM=""
DATASETS=()
while [ $# -gt 0 ]; do
  case $1 in
    --to) [ $# -ge 2 ] || die "--to needs a directory"; DEST=$2; shift 2 ;;
    --from) [ $# -ge 2 ] || die "--from needs a directory"; FROM=$2; shift 2 ;;
    --dataset) [ $# -ge 2 ] || die "--dataset needs a name"; DATASETS+=("$2"); shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (scripts/fetch_data.sh --help)" ;;
  esac
done
ALL=(azure-v1-flavor-traces huawei-east-1 netsolver-vdc)
[ ${#DATASETS[@]} -gt 0 ] || DATASETS=("${ALL[@]}")
for d in "${DATASETS[@]}"; do
  [[ " ${ALL[*]} " == *" $d "* ]] || die "--dataset: unknown data set '$d' (one of: ${ALL[*]})"
done
[ -z "$FROM" ] || [ -d "$FROM" ] || die "--from: no directory $FROM"
if [ -z "$FROM" ]; then command -v curl >/dev/null || die "curl is needed to download (apt-get install curl), or use --from MIRROR"; fi
command -v sha256sum >/dev/null || die "sha256sum (coreutils) is needed"

declare -A LICENCE=(
  [azure-v1-flavor-traces]="Azure Public Dataset V1 as processed by huaweicloud/trace_generation_rnn: traces CC BY 4.0 (traces/LICENSE), code MIT; cite Cortez et al., Resource Central, SOSP 2017"
  [huawei-east-1]="Huawei-East-1: CC BY-NC 4.0 (LICENSE.Huawei-East-1.txt), NON-COMMERCIAL use only; cite Sheng et al., VMAgent (arXiv 2112.04785) and Pattern Recognition 121 (2021)"
  [netsolver-vdc]="NetSolver VDC instances: MIT, Copyright (c) 2019 UBC-NSS (LICENSE.netsolver-aij-2019.txt); cite Bayless et al., AIJ 2020"
)
for d in "${DATASETS[@]}"; do echo "fetch_data: licence: ${LICENCE[$d]}"; done

part=""
trap '[ -z "$part" ] || rm -f "$part"' EXIT
fetched=0 kept=0 skipped=()
while read -r sum rel src; do
  ds=${rel%%/*}
  [[ " ${DATASETS[*]} " == *" $ds "* ]] || continue
  target=$DEST/$rel
  if [ -f "$target" ] && [ "$(sha256sum <"$target" | cut -d' ' -f1)" = "$sum" ]; then
    kept=$((kept + 1))
    continue
  fi
  if [ -z "$FROM" ] && [ "$src" = "-" ]; then
    skipped+=("$rel")
    continue
  fi
  mkdir -p "$(dirname "$target")"
  part=$target.part.$$
  if [ -n "$FROM" ]; then
    origin=$FROM/$rel
    [ -f "$origin" ] || die "$origin: missing from the mirror"
    cp "$origin" "$part"
  else
    repo=${src%%@*} rest=${src#*@}
    origin=https://raw.githubusercontent.com/$repo/${rest%%:*}/${rest#*:}
    rc=0
    curl -fsSL --retry 3 -o "$part" "$origin" || rc=$?
    [ "$rc" -eq 0 ] || die "$origin: download failed (curl exit $rc)" 1
  fi
  got=$(sha256sum <"$part" | cut -d' ' -f1)
  [ "$got" = "$sum" ] || die "$origin: SHA-256 $got, expected $sum: refused, $target not written"
  chmod 644 "$part"
  mv -f "$part" "$target"
  part=""
  fetched=$((fetched + 1))
done <<'MANIFEST'
efb81ad78cb4844d0b6ec2d0ec04911347f1976b6bf57d3c6384f62f013681fd azure-v1-flavor-traces/INPUT.upstream.md huaweicloud/trace_generation_rnn@fa856db037539396ae5dbc71f5a255f74c888443:INPUT.md
6fe9b25b7cea8c343d90895bda3d35175115d1184a6c5355a0993bbc823cc67e azure-v1-flavor-traces/LICENSE.repo-MIT.txt huaweicloud/trace_generation_rnn@fa856db037539396ae5dbc71f5a255f74c888443:LICENSE
c02b3b665dc458e86f0b4e7e854a861069df979b44436894cc4379f2417f63f8 azure-v1-flavor-traces/README.md -
cadfbeb07dbad921ebf7b12e42b5840ca51d5012917b3e18fe2f4109f869e753 azure-v1-flavor-traces/maps/batch_size_map.txt huaweicloud/trace_generation_rnn@fa856db037539396ae5dbc71f5a255f74c888443:resources/maps/batch_size_map.txt
2b7ae5498471022e4bb0d62b148cbde01d5704a5fef482096ad780e17cbb0902 azure-v1-flavor-traces/maps/flav_map.txt huaweicloud/trace_generation_rnn@fa856db037539396ae5dbc71f5a255f74c888443:resources/maps/flav_map.txt
404436c751ac5a345092b8b5c9cb91ca99ae013c675fd932cfb7fc633eb9579d azure-v1-flavor-traces/maps/v1.interval_map.txt huaweicloud/trace_generation_rnn@fa856db037539396ae5dbc71f5a255f74c888443:resources/maps/v1.interval_map.txt
89fabd8b979478da05528531af644fe9c9a8f3feb1cb796623db7ef43af932b7 azure-v1-flavor-traces/traces/LICENSE huaweicloud/trace_generation_rnn@fa856db037539396ae5dbc71f5a255f74c888443:resources/traces/LICENSE
46521121c2917b14800abd090354b41045ff5f5d88f8b144456af6e098196b32 azure-v1-flavor-traces/traces/v1.dev.c2100000.txt huaweicloud/trace_generation_rnn@fa856db037539396ae5dbc71f5a255f74c888443:resources/traces/v1.dev.c2100000.txt
78a3e6c258553b458bd8e55d867ef5fa1a2b82cdd5c4c4b1f777210669835af6 azure-v1-flavor-traces/traces/v1.dev.txt huaweicloud/trace_generation_rnn@fa856db037539396ae5dbc71f5a255f74c888443:resources/traces/v1.dev.txt
0f277857eb4240e9137429fd0bec9ed5355061d157492cb8061fb3e189ead963 azure-v1-flavor-traces/traces/v1.test.c2591400.txt huaweicloud/trace_generation_rnn@fa856db037539396ae5dbc71f5a255f74c888443:resources/traces/v1.test.c2591400.txt
2f0fcc2d12b76c54e58d222caa90547dd76033f3a97b032694e403ee81d4f815 azure-v1-flavor-traces/traces/v1.test.txt huaweicloud/trace_generation_rnn@fa856db037539396ae5dbc71f5a255f74c888443:resources/traces/v1.test.txt
9c2f66e4d003f7a60db7c6ca63f4af8ef553922339a10cda848498d92f0e8d64 azure-v1-flavor-traces/traces/v1.train.txt huaweicloud/trace_generation_rnn@fa856db037539396ae5dbc71f5a255f74c888443:resources/traces/v1.train.txt
2094a0c8a793b45c0698451a91a28e6a608447e6aeb439064b645c580dda8cd3 huawei-east-1/Huawei-East-1-lt.csv ChanTinPing/SPANE@f1d7df9e9f717780513bded3fefd1c1d9484200c:data/Huawei-East-1-lt.csv
1c11201c560bb3fb606c99ca6f188a9001780eb1ef989ad82991d901b8c97593 huawei-east-1/LICENSE.Huawei-East-1.txt huaweicloud/VM-placement-dataset@2a04fcb21a58c1442b4668bf31dba6fd285fc9dd:Huawei-East-1/LICENSE
75bc2134a642ce0df4169c0b5ab228a08a2c7b7305beb6a349c88f0b1d7d52d1 huawei-east-1/README.md -
4258bcadad6fecd7af4e45f7094ef7df46030acba2d007dbbbddf02186338458 huawei-east-1/README.upstream.md huaweicloud/VM-placement-dataset@2a04fcb21a58c1442b4668bf31dba6fd285fc9dd:Huawei-East-1/README.md
7f21a4f1bad066c73db251f13f3698f52e64c1d1620faf9bdf627f053c85f00f netsolver-vdc/LICENSE.netsolver-aij-2019.txt DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:LICENSE
4281e92bb63a17cb65018a3fed2ad0704af183023160e3cf608d16a5a0142987 netsolver-vdc/README.md -
6755889aa593929b8a86d5e432556a5041f04405a61ddd8f48d6cddc11bf4dfd netsolver-vdc/instances/fattree-bcube/BCube_n10_k2_bw10_cpu16.pn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/BCube_n10_k2_bw10_cpu16.pn
647c2f2362dc801e84910281c68c9cd3e554565f085dea119ae869b907617eef netsolver-vdc/instances/fattree-bcube/BCube_n12_k2_bw10_cpu16.pn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/BCube_n12_k2_bw10_cpu16.pn
183e3796aa829982bb8c13589498cabc5938272d9c973f76b4eba4ac55961dbf netsolver-vdc/instances/fattree-bcube/BCube_n12_k2_bw20_cpu16.pn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/BCube_n12_k2_bw20_cpu16.pn
af08d4db028414809349602e797b0cadce96ca233235f7be23c6b4e873fca4dc netsolver-vdc/instances/fattree-bcube/BCube_n16_k2_bw10_cpu16.pn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/BCube_n16_k2_bw10_cpu16.pn
e64a91830b6ec8ef3575aae1d389965ad30d5a3e25ee82c0c34524278d39f3fd netsolver-vdc/instances/fattree-bcube/BCube_n16_k2_bw20_cpu16.pn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/BCube_n16_k2_bw20_cpu16.pn
3d1f3e4ed9f79b1a9594db0d6933f6cfa93364b541c7676e95d37e73b83739b9 netsolver-vdc/instances/fattree-bcube/BCube_n8_k2_bw10_cpu16.pn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/BCube_n8_k2_bw10_cpu16.pn
29a3857adb2893cf75133c3b5fffac9ae85c9b7d84cced3d86490642c6444693 netsolver-vdc/instances/fattree-bcube/BCube_n8_k2_bw20_cpu16.pn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/BCube_n8_k2_bw20_cpu16.pn
39046a35d59d29948514d88126cbb2450077a6fff33b04ddf09df0ea8f5298f9 netsolver-vdc/instances/fattree-bcube/Fattree_n12_k2_bw10_cpu16.pn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/Fattree_n12_k2_bw10_cpu16.pn
b1583cb965499d594847a6e033c7d593b278b85db9dcf9bba8a373da6897d234 netsolver-vdc/instances/fattree-bcube/Fattree_n12_k2_bw20_cpu16.pn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/Fattree_n12_k2_bw20_cpu16.pn
f7467050a3c5d06b59c27a68e490d0050510ef2a922fadd39cdc39fc57732bf0 netsolver-vdc/instances/fattree-bcube/Fattree_n16_k2_bw10_cpu16.pn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/Fattree_n16_k2_bw10_cpu16.pn
762060f2925e3ae1d211a5aded66350343970b4a00b21d55eac11fd0c5b1dade netsolver-vdc/instances/fattree-bcube/Fattree_n16_k2_bw20_cpu16.pn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/Fattree_n16_k2_bw20_cpu16.pn
d019c64b3af7f07122b572562e9d165a237a5e91a0cbdf21cc3ff5eee6e4d887 netsolver-vdc/instances/fattree-bcube/Fattree_n8_k2_bw10_cpu16.pn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/Fattree_n8_k2_bw10_cpu16.pn
74e774d6c36a9cfedb237e4da4fbe05778b251f6dcad5cc5460ef3be732ad9fb netsolver-vdc/instances/fattree-bcube/Fattree_n8_k2_bw20_cpu16.pn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/Fattree_n8_k2_bw20_cpu16.pn
44dc222ef5e7d2db697900c5bdefb6396f2abc8fb6b3fe7a0a16906c4a715d9f netsolver-vdc/instances/fattree-bcube/instance_list_12vm_rnd.txt DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/instance_list_12vm_rnd.txt
39594a04eb1b7ee470b34ca8f5221ffc596fc272b2dd26d4e46f7b8ac1ec700d netsolver-vdc/instances/fattree-bcube/instance_list_15vm_rnd.txt DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/instance_list_15vm_rnd.txt
e86bb08380ea74226915f3b1cf7a16d789c1916bb9428acc54f25a8ba1b8f242 netsolver-vdc/instances/fattree-bcube/instance_list_6vm_rnd.txt DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/instance_list_6vm_rnd.txt
665d29530a2e504ccd412ae49cec26a62872c203f91706f41a0d35ce266e04c0 netsolver-vdc/instances/fattree-bcube/instance_list_9vm_rnd.txt DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/instance_list_9vm_rnd.txt
e24e7585b681616f53ff19a33b23cd8e3bf5c57f308cb0ad9697b6bf6dff4aab netsolver-vdc/instances/fattree-bcube/vn2_2.1.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_2.1.vn
4f38769e01ad2b9bcca42c01b31cc373a9cb6e413797df61d3e60534317a9626 netsolver-vdc/instances/fattree-bcube/vn2_2.10.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_2.10.vn
a60f83bb05705f16a6bafb1247fb7df132f037164868cfed54064eab3966ab3a netsolver-vdc/instances/fattree-bcube/vn2_2.2.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_2.2.vn
2ebb92a9abc07305274365fdb31625797aedb084db28b4bc153c8638b279d62a netsolver-vdc/instances/fattree-bcube/vn2_2.3.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_2.3.vn
cee6d0e0a48476c76e0e958ec7674eef4c64b6f1d40b989abba77c422a6380e1 netsolver-vdc/instances/fattree-bcube/vn2_2.4.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_2.4.vn
85bc4ac1e8328e5b6b1b664a5d86a5d6f1690be46980c23a3e63c8036c763519 netsolver-vdc/instances/fattree-bcube/vn2_2.5.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_2.5.vn
d0ac365011385e0670497c3ff7a4c0094d731f243941bef9ca4b843bd500281a netsolver-vdc/instances/fattree-bcube/vn2_2.6.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_2.6.vn
dad8226efedbdd34ca46e2c2a180ed86334005aa8f1d198c4c12a03e28a71aad netsolver-vdc/instances/fattree-bcube/vn2_2.7.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_2.7.vn
94896d0a14770c7344357992b9d6ea57434cef0b1e6c04471ebf6e267f6f3102 netsolver-vdc/instances/fattree-bcube/vn2_2.8.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_2.8.vn
da5ecb80153a8a5345245b0d7bc4414e4dcd8bd8427b1048eb11bc371e1ecb4d netsolver-vdc/instances/fattree-bcube/vn2_2.9.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_2.9.vn
8f4232be95e94a58ed97861d6d9009199513ffaac8348c87d984d6fb70c03900 netsolver-vdc/instances/fattree-bcube/vn2_3.1.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_3.1.vn
65be3b402f1c637856ae7a14751eb9bdd2e4e19c46407e8767ed2026e1449f61 netsolver-vdc/instances/fattree-bcube/vn2_3.10.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_3.10.vn
2f1929ae48e47dc138e662c02de053acfcee38e14ccfd1f3f79d5ede81ee03c3 netsolver-vdc/instances/fattree-bcube/vn2_3.2.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_3.2.vn
a336d8da328bab4fa6742e22317badfa8f35ca57d0d567c8f260bd4ae4b7c890 netsolver-vdc/instances/fattree-bcube/vn2_3.3.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_3.3.vn
58cd099d839e9b9aa34ffcc8aab5189e455942626f88aa684ea9669bfa978090 netsolver-vdc/instances/fattree-bcube/vn2_3.4.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_3.4.vn
4fe3f3ed8faad723db3b51d03611e4b5a08dd8c7d290fa05f28ae13772f6b83e netsolver-vdc/instances/fattree-bcube/vn2_3.5.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_3.5.vn
224be99555b2b3a76c829be3aa7bc659b4e787b01202a8946232a82b07001b1f netsolver-vdc/instances/fattree-bcube/vn2_3.6.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_3.6.vn
ee23c5b68487212c7e6e6e41f30532014f93792a41576bb4f9e1951c7e1085e1 netsolver-vdc/instances/fattree-bcube/vn2_3.7.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_3.7.vn
c0254cebe2cd5b596490a44ef5c4b800accf3f80166214f6e2ab789665130949 netsolver-vdc/instances/fattree-bcube/vn2_3.8.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_3.8.vn
cec3bcc82909170451fc716c7163bc11c584792c8fd977edbcca5bb34a62fa4d netsolver-vdc/instances/fattree-bcube/vn2_3.9.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_3.9.vn
bdaedf7cb0239eff99ce6e67a349176e3e9d94e9691b672558019e21914e1e65 netsolver-vdc/instances/fattree-bcube/vn2_4.1.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_4.1.vn
d283f1cdc0d271e5002f7d82d02ed229230c0265bc5ddcfd6bd71aae91a58e8d netsolver-vdc/instances/fattree-bcube/vn2_4.10.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_4.10.vn
fd3246b4f848cff7cbfd37b7ee8107fc2c2091097d34776fe1c3544896dfccc2 netsolver-vdc/instances/fattree-bcube/vn2_4.2.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_4.2.vn
66fdc83acd255d88325157848dcb6b94ad70d075ebc09787a8a3cda8cb4d33f4 netsolver-vdc/instances/fattree-bcube/vn2_4.3.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_4.3.vn
3dcd0610f457eaed6f3512bab345ca72f4ce4e4dc0a0277cf3d4993883b4f96e netsolver-vdc/instances/fattree-bcube/vn2_4.4.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_4.4.vn
4b62ac7bc069e4ea5f7f6a6752022e189e9ab3eb048a0e0135f2ce260dd7c6db netsolver-vdc/instances/fattree-bcube/vn2_4.5.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_4.5.vn
380df116db8b5627d221a523abea71e42148b02f5535819c6344c19ff68221b4 netsolver-vdc/instances/fattree-bcube/vn2_4.6.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_4.6.vn
42b4642f371bab54de1972b87fb6af0b5282d9f23e1f3f8cb28214f6b9aba34a netsolver-vdc/instances/fattree-bcube/vn2_4.7.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_4.7.vn
9ad453eb6f5e5a851b113d8115cf92774088c59d7388ba7b3997cb292e8543e7 netsolver-vdc/instances/fattree-bcube/vn2_4.8.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_4.8.vn
a23babbd14dd65ef60dfbafe32c8cfc962299c6d04ca4e9c2b26fd140fc0c535 netsolver-vdc/instances/fattree-bcube/vn2_4.9.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_4.9.vn
e30353c49935c0f6ae3b9541a7ac141b1115f56f8618b00e0d1b50eedac23618 netsolver-vdc/instances/fattree-bcube/vn2_5.1.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_5.1.vn
966721ee394e545a556ff4ca44f80600aa8480e46dd692cc5e6b3406e927dcae netsolver-vdc/instances/fattree-bcube/vn2_5.10.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_5.10.vn
0d7320a0d12224f6960d6868f9a9d580881923e29e6b44d2a9beb8b6528d18e0 netsolver-vdc/instances/fattree-bcube/vn2_5.2.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_5.2.vn
9b7b4bfc0fcd9dc69b2a9b3eb6d8ddea3b6fcd19eb521dd1bf4fd5425c2799a8 netsolver-vdc/instances/fattree-bcube/vn2_5.3.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_5.3.vn
5ae7668de8cc9cd4850af64c37ce196ae065172ad8e3d115571df7430c288e95 netsolver-vdc/instances/fattree-bcube/vn2_5.4.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_5.4.vn
fc08142ac4541fa4aee0a80d4487b6baad4f7fc541ed97280ac2873cc5134590 netsolver-vdc/instances/fattree-bcube/vn2_5.5.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_5.5.vn
de17a7277ba7f44adf0e85484cb06878c9ced20098377f2284c524745d2eb05b netsolver-vdc/instances/fattree-bcube/vn2_5.6.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_5.6.vn
d2c6604749465a8844c430724306742d3f36d3da881fd94ec8ae9e216b6968c3 netsolver-vdc/instances/fattree-bcube/vn2_5.7.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_5.7.vn
4a14613c198b16464356dc08c0b0cc36c869b3f01910116eea1488c6c354aed1 netsolver-vdc/instances/fattree-bcube/vn2_5.8.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_5.8.vn
d00d1451d016df30e514b0810e1e70182e5ce0228c7b48662528c2d398f26baf netsolver-vdc/instances/fattree-bcube/vn2_5.9.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fattree-bcube/vn2_5.9.vn
451b9d78b557f41e3ba601015429b0251eea9dfd18829e2e4d15afeca4c824e7 netsolver-vdc/instances/fmcad/in_json/README DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fmcad/in_json/README
83d07bdb122aa4de7084fbeebf77391dd57e6ae60321ecb791b3def8958368f2 netsolver-vdc/instances/fmcad/in_json/instance_list_vn2_3.1 DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fmcad/in_json/instance_list_vn2_3.1
d01ad286b332c22f9339fd49746ab6c8ac39bc419e7b0c4d8f76524a746907a5 netsolver-vdc/instances/fmcad/in_json/instance_list_vn2_3.2 DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fmcad/in_json/instance_list_vn2_3.2
aeb284207ae0ea1cabf74eed235389cc13f2368260daa0482b3812efafa141df netsolver-vdc/instances/fmcad/in_json/instance_list_vn2_3.3 DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fmcad/in_json/instance_list_vn2_3.3
4d0013099e2850c4c09d6cd11b199e84e99fb09880da7d89b06961b5166a441b netsolver-vdc/instances/fmcad/in_json/instance_list_vn2_5.1 DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fmcad/in_json/instance_list_vn2_5.1
2c066e6616e11550d0c3af8fb506c9cd3e27d3722c85c7d897173bdbeff0416d netsolver-vdc/instances/fmcad/in_json/instance_list_vn2_5.2 DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fmcad/in_json/instance_list_vn2_5.2
e85e6ad966314bd777a3925c97bc49cb8e983e1d58f6ad99bd5e43dcc9dc392f netsolver-vdc/instances/fmcad/in_json/instance_list_vn2_5.3 DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fmcad/in_json/instance_list_vn2_5.3
9e50645d7e2e512060692cba3abfc355fe6e7064398d069c842b58b4200255b7 netsolver-vdc/instances/fmcad/in_json/tree16_200.20.pn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fmcad/in_json/tree16_200.20.pn
8c8409c74bb5b896aaa3dbf29c166e945ecadbe02491c02c370f5a48e98a03ea netsolver-vdc/instances/fmcad/in_json/tree16_2000.20.pn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fmcad/in_json/tree16_2000.20.pn
eb61c276616377a11f6593b6d479d5310d2869f37ab3ad42dda376e5c89512b0 netsolver-vdc/instances/fmcad/in_json/tree16_400.20.pn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fmcad/in_json/tree16_400.20.pn
4a7d3c05eb1c3143fe6c5d7d81880a5ab949263700324aecada9bdb5c9202710 netsolver-vdc/instances/fmcad/in_json/tree_200.20.pn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fmcad/in_json/tree_200.20.pn
efa54fc85f5322af2db3dcd994c64125e337d88d088dc13f1a806d1863ebdb67 netsolver-vdc/instances/fmcad/in_json/tree_2000.20.pn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fmcad/in_json/tree_2000.20.pn
882c4c185ad194c44f47d9047db56699b535b4958118bea2551c1ad248cf7176 netsolver-vdc/instances/fmcad/in_json/tree_400.20.pn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fmcad/in_json/tree_400.20.pn
8f4232be95e94a58ed97861d6d9009199513ffaac8348c87d984d6fb70c03900 netsolver-vdc/instances/fmcad/in_json/vn2_3.1.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fmcad/in_json/vn2_3.1.vn
2f1929ae48e47dc138e662c02de053acfcee38e14ccfd1f3f79d5ede81ee03c3 netsolver-vdc/instances/fmcad/in_json/vn2_3.2.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fmcad/in_json/vn2_3.2.vn
a336d8da328bab4fa6742e22317badfa8f35ca57d0d567c8f260bd4ae4b7c890 netsolver-vdc/instances/fmcad/in_json/vn2_3.3.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fmcad/in_json/vn2_3.3.vn
e30353c49935c0f6ae3b9541a7ac141b1115f56f8618b00e0d1b50eedac23618 netsolver-vdc/instances/fmcad/in_json/vn2_5.1.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fmcad/in_json/vn2_5.1.vn
0d7320a0d12224f6960d6868f9a9d580881923e29e6b44d2a9beb8b6528d18e0 netsolver-vdc/instances/fmcad/in_json/vn2_5.2.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fmcad/in_json/vn2_5.2.vn
9b7b4bfc0fcd9dc69b2a9b3eb6d8ddea3b6fcd19eb521dd1bf4fd5425c2799a8 netsolver-vdc/instances/fmcad/in_json/vn2_5.3.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fmcad/in_json/vn2_5.3.vn
7fc7960c4c1963ffb0055955195a19970753cbd9409212c09da4509a909f4b89 netsolver-vdc/instances/fmcad/tree16_200.20 DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fmcad/tree16_200.20
d35c99ca0c8edcedebac221ddaf8a6d5bf4e93c87f583165ba44cd9396abfcf1 netsolver-vdc/instances/fmcad/tree16_2000.20 DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fmcad/tree16_2000.20
52b69fce25f6bfd496c169799c09d0238df5b68d824d1fe96df9de9c0a65c451 netsolver-vdc/instances/fmcad/tree16_400.20 DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fmcad/tree16_400.20
26e4f06300c877817e21d4dc4aefb1e9d07f9ee321c00508120f7cbbfbc205c2 netsolver-vdc/instances/fmcad/tree_200.20 DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fmcad/tree_200.20
660a0d674001d027a6120b97ec87ccd2bfedb6b6360e01f41cf5531dc1fedcd9 netsolver-vdc/instances/fmcad/tree_2000.20 DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fmcad/tree_2000.20
8e8df52a813d13cda6a8a4dc985ed24f5d7ca79985fedea1d103ba66d5af77e2 netsolver-vdc/instances/fmcad/tree_400.20 DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fmcad/tree_400.20
69f7c02ea15c851754e70b4fe92e68ddc6b8f47ae1524e88bd4d41aa0d6fbc65 netsolver-vdc/instances/fmcad/vn2_3.1 DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fmcad/vn2_3.1
ea1fa1d1f09995d14ff5b2175d606588927c335d5ac16684b73955429732095e netsolver-vdc/instances/fmcad/vn2_3.2 DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fmcad/vn2_3.2
05a7e9aefb543e22dc0042a50eb618bae14cc7baaea77975ee0259f3fb3ce2ba netsolver-vdc/instances/fmcad/vn2_3.3 DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fmcad/vn2_3.3
121c8615893904f63e4ea5440208e14c3e785cf132914550fdfc7289e772fa74 netsolver-vdc/instances/fmcad/vn2_5.1 DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fmcad/vn2_5.1
31176e487bfd029ea88b400a6962d1e64c75d4c174788ffba09f98fcba1dd1ee netsolver-vdc/instances/fmcad/vn2_5.2 DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fmcad/vn2_5.2
c4fd0c5034cfacb93c731562006869d88e8d6320e05035ba178a370e89b7f1ca netsolver-vdc/instances/fmcad/vn2_5.3 DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/fmcad/vn2_5.3
1f1b5f4589f0a7dfb4037fd1da0a29b567f33c3786ffcb4f23a4b147c355c146 netsolver-vdc/instances/hadoop/README.md DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/README.md
1ec9fd1d8cc60b21300cc96553cbb7f90839d5abe8fc32dd636d9ea9decfe72c netsolver-vdc/instances/hadoop/hadoop_10_1bw.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_10_1bw.vn
a24551c1eeae4f28a0aa43b1050ccbeb92038cc4f60328058ea386a5ebc806fe netsolver-vdc/instances/hadoop/hadoop_10_2bw.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_10_2bw.vn
528157525ba8dfc771152bfba5b47f505db08b12f4b99cf450b0d49b13dca637 netsolver-vdc/instances/hadoop/hadoop_15_1bw.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_15_1bw.vn
372d5e9c9207c6be01c5ff80d4de8760cb489754efd2988016b967323c6c00af netsolver-vdc/instances/hadoop/hadoop_15_2bw.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_15_2bw.vn
77e5e50113ca1e33802ab65223b32dfba0fe2afe1c2be1244baf96288084aaef netsolver-vdc/instances/hadoop/hadoop_1bw.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_1bw.vn
d113e0bc2f4f00cfe73ff24a10af82f9191e7d5703dcfff64b3b4e106beb6d05 netsolver-vdc/instances/hadoop/hadoop_20_1bw.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_20_1bw.vn
4cc6d89eefde3ebdce991f0a70ee6aaec66f4da10d2e0fc0694666cbb1d95101 netsolver-vdc/instances/hadoop/hadoop_20_2bw.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_20_2bw.vn
e26a40509eda547b3f79722a1495a3821f50bd233266f80d23d06aced3fde2a6 netsolver-vdc/instances/hadoop/hadoop_25_1bw.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_25_1bw.vn
1f7816f82359a2a0528e7b392297eb5fb6c8e38d513f779be4943b3bbde96392 netsolver-vdc/instances/hadoop/hadoop_25_2bw.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_25_2bw.vn
751a168f59485c63a619a8f4ab0ef19f6ee23f017237521059389a7b8a204cc3 netsolver-vdc/instances/hadoop/hadoop_2bw.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_2bw.vn
aa3be743cdb433931ea389c159e57e4469adcec22fa2cf2dfdcffc25534fcaa1 netsolver-vdc/instances/hadoop/hadoop_30_1bw.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_30_1bw.vn
713d745b118469a2abb5323884df35dff29b5c654032b322fba649f9dc2cbd58 netsolver-vdc/instances/hadoop/hadoop_30_2bw.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_30_2bw.vn
77e5e50113ca1e33802ab65223b32dfba0fe2afe1c2be1244baf96288084aaef netsolver-vdc/instances/hadoop/hadoop_4_1bw.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_4_1bw.vn
751a168f59485c63a619a8f4ab0ef19f6ee23f017237521059389a7b8a204cc3 netsolver-vdc/instances/hadoop/hadoop_4_2bw.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_4_2bw.vn
45b0b85124057c243e05ca33d0b6e72112a6b6dd6f2a8d424894342693cfcc72 netsolver-vdc/instances/hadoop/hadoop_extensions/hadoop_10_1bw.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extensions/hadoop_10_1bw.vn
61c6b3d04a9fb7b9a641635cf2ff2fe4eaeca95bfda56be913c17ec7a322938d netsolver-vdc/instances/hadoop/hadoop_extensions/hadoop_10_2bw.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extensions/hadoop_10_2bw.vn
e50675bb83e4a464aa94c1278f3c2c8564726ebe67bb37f2c24586b572231017 netsolver-vdc/instances/hadoop/hadoop_extensions/hadoop_15_1bw.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extensions/hadoop_15_1bw.vn
fa6ae5f726952ee64fd3c1cb02c77bc20dbcba8e57393f49c08117047450b971 netsolver-vdc/instances/hadoop/hadoop_extensions/hadoop_15_2bw.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extensions/hadoop_15_2bw.vn
c357568ce52c9facd7beacebbc7e35f466893323d8068a5269932b5df5771ed6 netsolver-vdc/instances/hadoop/hadoop_extensions/hadoop_1bw.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extensions/hadoop_1bw.vn
3899f7a937efa97671448008e66c68d91a79d1683f37cae4e24f430a23d1dd41 netsolver-vdc/instances/hadoop/hadoop_extensions/hadoop_20_1bw.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extensions/hadoop_20_1bw.vn
eff746d51e32471fb796c0afd2e2ea1feafb2dd1a9b3562d95c82b4dcf074f09 netsolver-vdc/instances/hadoop/hadoop_extensions/hadoop_20_2bw.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extensions/hadoop_20_2bw.vn
75e10b5ffd815fc7c1a4d9d1bbe155217b80a097ceabf46d33d7488ea8b5de8d netsolver-vdc/instances/hadoop/hadoop_extensions/hadoop_25_1bw.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extensions/hadoop_25_1bw.vn
c81a8744d5cca060670c3be04c3e1dc957ac2495b0cf38ceb892e9edd84da7ff netsolver-vdc/instances/hadoop/hadoop_extensions/hadoop_25_2bw.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extensions/hadoop_25_2bw.vn
8de7e7446e02c51fdb7f760c88e95c3c830dcffed1292da4286e9952c331b2ea netsolver-vdc/instances/hadoop/hadoop_extensions/hadoop_2bw.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extensions/hadoop_2bw.vn
ef495096c08eeac69c11c513580e4eba09a50dd93ef573e56889eb2826a8d48e netsolver-vdc/instances/hadoop/hadoop_extensions/hadoop_30_1bw.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extensions/hadoop_30_1bw.vn
c70118648a0bcf5667de2fe4cd68a6fc6192945a7756fab5c82098e263cd6d52 netsolver-vdc/instances/hadoop/hadoop_extensions/hadoop_30_2bw.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extensions/hadoop_30_2bw.vn
c357568ce52c9facd7beacebbc7e35f466893323d8068a5269932b5df5771ed6 netsolver-vdc/instances/hadoop/hadoop_extensions/hadoop_4_1bw.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extensions/hadoop_4_1bw.vn
8de7e7446e02c51fdb7f760c88e95c3c830dcffed1292da4286e9952c331b2ea netsolver-vdc/instances/hadoop/hadoop_extensions/hadoop_4_2bw.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extensions/hadoop_4_2bw.vn
4552fc34f971f324b576f8259bd6b900a45852271d0e309dcd043126b300470e netsolver-vdc/instances/hadoop/hadoop_extensions/us-mid1.pn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extensions/us-mid1.pn
ba479ce4106af5a607f00beeda7841245ddd35c8a8703491911d6d085a35f85e netsolver-vdc/instances/hadoop/hadoop_extensions/us-mid2.pn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extensions/us-mid2.pn
9002a7072db5bcd546fbd44a68e78a41e3219dc209ccac4e3a64f1d926228cd1 netsolver-vdc/instances/hadoop/hadoop_extensions/us-west1.pn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extensions/us-west1.pn
500097423e46b74c4381ed1c647ab32efb453ae5f13dca23f1855d35ecaad622 netsolver-vdc/instances/hadoop/hadoop_extensions/us-west2.pn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extensions/us-west2.pn
995396fa283eba64276ea14293860a282d7a70e973893e53c714eafd6f4b69aa netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_10.1.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_10.1.vn
e60f8751bee1291bc986a7616909f452b2c984cf3a2ccddc1722ad99b5886713 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_10.10.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_10.10.vn
20a26c6df51ee3a14a00802ff2ad31853c954aac96a643b75c2274dd0c598281 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_10.2.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_10.2.vn
d94d9c7b956f4a3096ea19e243fbf8755cf3e4f9c4c4bbce1071fdb7405db723 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_10.3.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_10.3.vn
53f1c9aa824fe75b478dac614a74590acebccacbfac8855959937fbd4d4cc33f netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_10.4.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_10.4.vn
25272051e74a4ae2661f68486136e1c0f7a1bf21c49dea5ed047ea700c6b8ada netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_10.5.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_10.5.vn
ae4ef4979cf098daf0b17ea8303d763cedc2d90e384940608c47e793fdbdc904 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_10.6.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_10.6.vn
3dfe45f85a1051a8aeaf7a72db9cd05abf950582d3c7a65e391283cffe55fae3 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_10.7.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_10.7.vn
bc5657effa34dd196ba0cd172c7aa19d39991c19cbc4b6f69f700090a65b662c netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_10.8.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_10.8.vn
7990e5a3fcca5b4089d3f34959c6416e106d3171d1d53ad02a86b11b652b319e netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_10.9.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_10.9.vn
39f1d45324281a616835a3ece1e6831b2ff98ac1686cd0ab4eca6481adec7515 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_12.1.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_12.1.vn
a66397a48a1db88c1f7e996948414b52e0731495c044f3abb41da8d0c50fa2fa netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_12.10.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_12.10.vn
6c613eba6b8327e11e694a34b7012e8781fba52cf076b5c7dab559281659a1f6 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_12.2.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_12.2.vn
fcbeeabe42597d70bc4a34c4455f7ef7a030e71fc29c7ccf9f568564a0be31ab netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_12.3.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_12.3.vn
7e0507759d94a673454efdf04ff056cd1f7670f905e39eb932a74098b402cdcb netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_12.4.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_12.4.vn
c6242f37063749c2ef9938da801c57b120289787f42aaf3a7ecc2a2ae6fe3283 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_12.5.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_12.5.vn
3d515b993a6efc9d99e28083bbe9d269e4907bb1840e9d36f651c69808fe20f7 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_12.6.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_12.6.vn
0352f10073f5cfb53778cf4d10a423878660cec67919d5cf765aad909752dc75 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_12.7.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_12.7.vn
dc2000829d7bf6d1b3e5ca201a860de000d6c9e53e7e16738b8b6a927e244bd9 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_12.8.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_12.8.vn
7ec52a648379451a11cc361182d077a1a92d42b176e970e143dbdb4b29dbf3cd netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_12.9.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_12.9.vn
04c55c0d69c2e6db338bee2d3c2002092424dc28bf9a0e7cc549cf776b1f6468 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_14.1.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_14.1.vn
223a4dfe8239702f08837f0beec5613543e2a96923611197e831c9cc77ed5938 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_14.10.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_14.10.vn
9ff15fb5fc06aac0c434a9cedb97ddc00e5c3543dd083743e2be39e9573a81d5 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_14.2.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_14.2.vn
b76e29a607e9208361280d438d529c8b8cb211a3c4307bdb8fc7c84d79f7aab0 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_14.3.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_14.3.vn
430b3e957a8e04feed849646e3657942a971450fa7d9668e7999b5fec8f9b5af netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_14.4.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_14.4.vn
5a4f72eb315282812545b3be94e29c351e23d513eb9953db236416750a99b6b7 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_14.5.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_14.5.vn
c72d6911b0b9733ce980d4a064d076e7bac59201f3806c87355517298e1fb63f netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_14.6.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_14.6.vn
b8bed3341e88f3afcff050c3d7afbd681baf810096b3ba6963f1766608cd1575 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_14.7.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_14.7.vn
d176a1287f011e7b4481e1d50743977a2f9cb46f21db1edbde86c80e0095088b netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_14.8.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_14.8.vn
51967686092504eeae4607eb9f054f3e0732500879eab6f8a91020070265616a netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_14.9.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_14.9.vn
6a5695503b21bba6d4ae6b1435030d635d44841c17ffec2695e93234f8dd285a netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_4.1.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_4.1.vn
b33ee645b9c77af9c1ed1aa893b6ff50eaef53cd594c903c629f3067ac88a5ad netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_4.10.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_4.10.vn
a1dbf302d94ac7df422b5c24582d5bc45735adf4ea170e343b7df66d6484f815 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_4.2.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_4.2.vn
f7bcf85d86406276b216a4f3f9c9eb9d2f358bbfd9dae4d2fdcd115b85a2db97 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_4.3.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_4.3.vn
4f4999e4ef79be5e737e4e3b99bc81aae2cce457a149fd4d4994ada2cefee534 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_4.4.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_4.4.vn
6d4ed3cef8db6f76b13d0ed0db0b3242bc9b0e33874cea87b00b650666a541c9 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_4.5.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_4.5.vn
4424e8788dfc4c91562cd509a792b74bccadeef223fcc6e0717d4b540c599e96 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_4.6.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_4.6.vn
b148af6f09ab84a0aff7ebe51b15496f8126366ca3f52da1ffb1ee183dcbc2eb netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_4.7.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_4.7.vn
8f0c84a282c8de45b89eb50a9fb6c72ddb28dc11fe9fc61659a0bace75c56581 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_4.8.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_4.8.vn
38680a50c5cf56cb28ed465bf3d67ae16a2d0d26f8b9f30368d6f35255a54d9a netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_4.9.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_4.9.vn
593be25b0f2edf39c5f353e9cb045136cb04877228b5167cff85d82f3b31b922 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_6.1.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_6.1.vn
dcabb720d974d3c8f0cf95e70f5fed7231b3a33a75d9a5d8eadb8d2f67ab2575 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_6.10.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_6.10.vn
92f1b0caa523bf322e660b4edf2397aa0c73bab88ce7adddfee072804178fe11 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_6.2.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_6.2.vn
cd677f0a00643bf34bb1352a54b50235e5ce63641b4a1b87ad5e6a5e1e572d0e netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_6.3.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_6.3.vn
1680b4e73d6f5c6fe3a0cdc0774139260b115fbc1b0f20fb69ea99de314ddaf9 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_6.4.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_6.4.vn
1084b658076d4345be5404049aaded07e823d5d0213c0ec3b50b0cc793c1c96f netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_6.5.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_6.5.vn
60d8fe59c8bb1e3813fa5fc771171ec7b0c7bb4ac125fc3c3122a4c4dc14569e netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_6.6.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_6.6.vn
0fbaf8d98932d9b1c2ed6b5b543b3fda8450d723b6b508e994af5ee097a67ab1 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_6.7.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_6.7.vn
114c7c3215a67508849aef700b929713ddb9f8736ee1536225cdb265d9f1fb13 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_6.8.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_6.8.vn
e196d6411c68703e63d74584686e2aa745df4bd2feb2a6dcaf6306d504523b35 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_6.9.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_6.9.vn
e9fe491a176c0dffc4e600a3815a519b20781c010728f3bad2d67ac6ada4c499 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_8.1.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_8.1.vn
e1ca47ac258a95a85adb993cdbf8c829e92be8ef796caed74698a59e3e781b38 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_8.10.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_8.10.vn
c2902e570ddad391725a68eafd408225fd583c69b145668bf447d7b60c3ae2db netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_8.2.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_8.2.vn
dceaa087bbcbb1738bfccbc490e52fbbd398bf6e99c27631bc1adf46d2d3dd63 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_8.3.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_8.3.vn
350a02c9891d3478366bb2073705576335e10adcf445acbba44cca06c0a9933c netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_8.4.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_8.4.vn
7f780cfaa69058d7d517937578bd05c5056d835be3926450079bec0dc91fb8e6 netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_8.5.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_8.5.vn
7206de3234694a4714aab3c43125418613478851af156ff267b44b8140115a8d netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_8.6.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_8.6.vn
4fcba585c3398b098af7a6812f633036140ec0de5101a106378ebca288238eca netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_8.7.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_8.7.vn
989adf8e4d6bd3bc9c194fe7069fe66aca97e0055711efcaf72b205d5dc980eb netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_8.8.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_8.8.vn
63727987918e29f719a16c275615d16afe2f41c48cc1fc8c1513eb4e015df05a netsolver-vdc/instances/hadoop/hadoop_extra/hadoop_8.9.vn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/hadoop_8.9.vn
4552fc34f971f324b576f8259bd6b900a45852271d0e309dcd043126b300470e netsolver-vdc/instances/hadoop/hadoop_extra/us-mid1.pn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/us-mid1.pn
ba479ce4106af5a607f00beeda7841245ddd35c8a8703491911d6d085a35f85e netsolver-vdc/instances/hadoop/hadoop_extra/us-mid2.pn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/us-mid2.pn
9002a7072db5bcd546fbd44a68e78a41e3219dc209ccac4e3a64f1d926228cd1 netsolver-vdc/instances/hadoop/hadoop_extra/us-west1.pn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/us-west1.pn
500097423e46b74c4381ed1c647ab32efb453ae5f13dca23f1855d35ecaad622 netsolver-vdc/instances/hadoop/hadoop_extra/us-west2.pn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/hadoop_extra/us-west2.pn
16ffeda95b99abc9c72d858f39caf2515db45a2819c55ab34b143f0d8db936ba netsolver-vdc/instances/hadoop/instance_list_hadoop_10vm_rnd.txt DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/instance_list_hadoop_10vm_rnd.txt
cb79cb5313f9b8ce06896d9b8cba2f76928b51a23c547d35f2a0dd0674d65407 netsolver-vdc/instances/hadoop/instance_list_hadoop_12vm_rnd.txt DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/instance_list_hadoop_12vm_rnd.txt
77c1d5c9461072911a4a62ed97e7476cfa47e5292b0827afa294566832d9bdd5 netsolver-vdc/instances/hadoop/instance_list_hadoop_14vm_rnd.txt DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/instance_list_hadoop_14vm_rnd.txt
09f09185135b8710690fb0c79d5639ce3941491c6dfecc330cc838e6dd33e45e netsolver-vdc/instances/hadoop/instance_list_hadoop_4vm_rnd.txt DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/instance_list_hadoop_4vm_rnd.txt
41f3e55314b3a2a8c79e6befb204c54411fdec03f1a082075d232674b4124c32 netsolver-vdc/instances/hadoop/instance_list_hadoop_6vm_rnd.txt DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/instance_list_hadoop_6vm_rnd.txt
95858d736260d7b6e49c0633ca087a1aab1da485707b2d4a6cb635c1a241fc5a netsolver-vdc/instances/hadoop/instance_list_hadoop_8vm_rnd.txt DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/instance_list_hadoop_8vm_rnd.txt
1953c415ad403697c4fc3d5d65d1e35198a5b5371da619d367e33a26c09ef086 netsolver-vdc/instances/hadoop/us-mid1.pn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/us-mid1.pn
6fc58d81aeb8cbbd3ba0b1689e089b09a4e8a8b83ccf4450726100cccd9b9580 netsolver-vdc/instances/hadoop/us-mid2.pn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/us-mid2.pn
7d149498e43f6b1851dd149dbf3a78ce623dffeec0b7b46a18f927b7889a750f netsolver-vdc/instances/hadoop/us-west1.pn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/us-west1.pn
f3b67472603f3e86f95b335fe5a11a57058b707992ed9f0ed41904355c1df3e4 netsolver-vdc/instances/hadoop/us-west2.pn DCResourceManage/netsolver-aij-2019@0c08fa42f53488ae70ffd8132c74cd67c2c902f3:instances/hadoop/us-west2.pn
0e9e01dbee1f0cb1c7c4efbfe7b0a06d67715254b14502c92265821c0c1700e3 netsolver-vdc/published_allocation_results.csv -
MANIFEST
echo "fetch_data: $DEST: $fetched files $([ -n "$FROM" ] && echo "copied from $FROM" || echo downloaded), $kept already in place, all SHA-256 verified"
if [ ${#skipped[@]} -gt 0 ]; then
  echo "fetch_data: not upstream, so not fetched (use --from MIRROR for them): ${skipped[*]}"
fi
