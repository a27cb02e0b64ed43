#!/bin/sh
# Grades the class in 50 parts on Slurm, then merges them: run it in the
# class's directory (tests/, students/) on the cluster's shared filesystem.
set -e
mkdir -p parts
job=$(sbatch --parsable --array=1-50 grade.sbatch)
sbatch --dependency=afterany:"$job" merge.sbatch
