// pt-BR words the rules sectioner listens for beyond the spoken headings (src/language/headings.ts):
// phrases that open a section, cue words and their weights. Accent-free and lower-case: matching
// runs on folded text.

import type { SectionLabel } from '../../language/sections.ts';

/**
 * Phrases that open a sentence of one section and move the note there, without being stripped
 * (the words are content): "Prescrevo ...", "Retorno em 7 dias", "Reavaliar em 48 horas".
 */
export const SWITCH_AT_START: { label: SectionLabel; pattern: RegExp }[] = [
  { label: 'treatment', pattern: /^(?:prescrevo|prescrito|prescrita|receito|receitado|aplicad[oa]s?|administrad[oa]s?)\b/ },
  {
    label: 'follow_up',
    pattern: /^(?:retorno|retornar|retorna|reavaliar|reavaliacao|revisao) (?:em|no|na|apos|daqui|dentro|com|amanha|para)\b/,
  },
  { label: 'follow_up', pattern: /^(?:retornar|reavaliar)\b/ },
];

/** Cue words scored per section when no heading decides; weights say how telling a cue is. */
export const CUES: Record<SectionLabel, [RegExp, number][]> = {
  anamnesis: [
    [
      /\b(?:tutor|tutora|proprietari[oa]|dono|dona)\b.{0,20}\b(?:relata|refere|conta|informa|diz|disse|percebeu|notou|acha|estima|observou|queixa)/,
      4,
    ],
    [/\b(?:relata|refere|referiu|informa|queixa)\b/, 2],
    [
      /\b(?:ha|faz|fazem) (?:uns |umas |cerca de |mais de )?(?:\d+|um|uma|dois|duas|tres|quatro|cinco|seis|sete|oito|dez|quinze|alguns|algumas|poucos) (?:horas?|dias?|semanas?|mes|meses|anos?)\b/,
      2,
    ],
    [/\b(?:desde|comecou|iniciou|ha tempos)\b/, 2],
    [/\b(?:ontem|anteontem|hoje cedo|hoje de manha|madrugada|semana passada|ultimos? (?:dias|meses|semanas))\b/, 1],
    [
      /\b(?:vomit\w*|vomito|diarreia|tosse|tossindo|espirr\w*|coc(?:a|ando|ou|ava)|coceira|mancando|emagrec\w*|perdeu peso|apatia|apatico|prostrad[oa]|convuls\w*|crises?)\b/,
      2,
    ],
    [
      /\b(?:apetite|parou de comer|nao (?:quer )?com(?:e|er)|recusando|comendo|bebendo|bebe|urinando|xixi|fezes|defec\w*|lambe\w*|chorava|miando)\b/,
      1,
    ],
    [/\b(?:nega|sem (?:vomitos?|diarreia|queixas|alteracoes de comportamento)|nao houve|nunca)\b/, 2],
    [/\b(?:vacina(?:cao|s)? (?:em dia|atrasada)|vacinad[oa]|vermifug(?:acao|ado|ada)|castrad[oa]|cio|prenhe)\b/, 2],
    [
      /\b(?:ja (?:teve|usou|fez|tomou|foi)|tomou|usou|trocou|trocaram|mudanca|viajou|viajamos|adot\w+|resgat\w+|pegou|comeu|ingeriu|atropelad[oa]|bateu|briga|acesso a|contato com|mora|vive|alimentacao (?:com|a base|so)|so (?:com|fica))\b/,
      2,
    ],
    [
      /\b(?:\d+|um|dois|tres|quatro|cinco|seis|sete|oito|nove|dez|onze|doze) anos\b|\b(?:srd|sem raca definida|macho|femea|filhote|raca)\b/,
      2,
    ],
    [/^(?:paciente|animal|cao|cadela|canino|canina|gato|gata|felino|felina|coelh[oa]|calopsita|egua|cavalo|furao|hamster|tartaruga)\b/, 2],
    [/\b(?:trazid[oa]|veio|chegou|primeira consulta)\b/, 2],
  ],
  physical_exam: [
    [/\b(?:temperatura|tr|febre)\b|\b\d+(?:,\d+)? ?(?:graus|°c?)\b/, 3],
    [/\b(?:frequencia (?:cardiaca|respiratoria)|fc|fr|bpm|mpm|batimentos|movimentos respiratorios|pulso|pressao arterial)\b/, 3],
    [
      /\b(?:mucosas?|tpc|preenchimento capilar|hidrata\w*|desidrata\w*|normocorad\w*|hipocorad\w*|hiperemi\w*|ictéric\w*|icteric\w*|congest\w*|palid\w*)\b/,
      3,
    ],
    [
      /\b(?:palpa\w*|auscult\w*|percuss\w*|sopro|bulhas|crepita\w*|linfonod\w*|reflexos?|escore corporal|pesa|pesando)\b|\bpeso (?:de )?\d/,
      3,
    ],
    [
      /\b(?:examinar|examinando|dar uma olhada|deixa eu ver|na mesa|ao exame|exame (?:fisico|clinico|neurologico|dermatologico|oftalmico))\b/,
      3,
    ],
    [/\b(?:sem alteracoes|dentro da normalidade|normais?|alerta|consciente|apresenta|presenca de|evidencia)\b/, 1],
    [
      /\b(?:eritema\w*|alopecia|pelame|pelo opaco|escoria\w*|edema|nodulo|massa|ferida|lesao|lesoes|secrecao|tartaro|gengiv\w*|conduto|abdomen|abaulad\w*|distendid\w*|dor|doloros[oa]|aumentad[oa]s?|espessad[oa]s?|pulmao|pulmonar|coracao|bexiga)\b/,
      1,
    ],
    [/\b\d+(?:,\d+)? ?(?:kg|quilos?|gramas|g)\b/, 1],
  ],
  diagnosis: [
    // Prognosis.
    [
      /\b(?:prognostico|a maioria|costuma|tem cura|chance|chances|reversivel|irreversivel|evolu\w+|controla(?:vel)?|sobreviv\w+|risco|reservado|favoravel|desfavoravel)\b/,
      2,
    ],
    // Reading a result.
    [
      /\b(?:veio|vieram|deu|deram|resultado|mostr\w+|revel\w+|confirm\w+|normaliz\w+|elevad[oa]s?|dentro d[oa]|faixa|sugere|sugestiv\w+|indica|tipic[oa]|classic[oa]|caracteristic\w+)\b/,
      1,
    ],
    // Naming what the animal has.
    [/\b(?:isso (?:aqui |ai )?e|o que (?:ele|ela) tem e|e um caso|e um quadro|da idade|por causa d[aeo]s?|o povo chama)\b/, 2],
    [/\b(?:suspeit\w*|diagnostic\w*|compativel|sugestiv\w*|diferencia(?:l|is)|descartar|hipotese|impressao)\b/, 4],
    [/\b(?:provavel|provavelmente|possivel|pode ser|tudo indica|isso e|e um quadro|quadro de|confirm\w*|investigar|indicativo)\b/, 2],
    [
      /\b(?:hemograma|bioquimic\w*|ultrassom|ultrassonografia|ecocardiograma|eletrocardiograma|raio ?x|radiografia|citologia|biopsia|urinalise|exames? (?:de sangue|de urina|de fezes|pre-?anestesicos?)|coproparasitolog\w*|glicemia|teste rapido|cultura|antibiograma|dosagem|sorologia|pcr)\b/,
      2,
    ],
    [/\b(?:positivo|negativo|resultado|mostrou|revelou|confirmou)\b/, 2],
    [/\b(?:solicit\w+|pedir|pedido|pedindo|coletad[oa]s?|coletar|coleta)\b/, 1],
    [/\b\w+(?:ite|ites|ose|oses|oma|omas|ismo|patia)\b/, 1],
    [/\b(?:doenca|sindrome|insuficiencia|tumor|neoplasia|fratura|intoxicacao|infeccao|obstru\w+|alergi\w*|inflamacao|controlad[oa])\b/, 2],
  ],
  treatment: [
    [/\b(?:prescrevo|prescrit[oa]|prescricao|receit\w+|tratamento|conduta|medica(?:cao|mento|r))\b/, 3],
    [
      /\b\d+(?:,\d+)? ?(?:mg|mcg|ml|ui|g)\b|\bmg ?\/ ?kg\b|\bmg por (?:kg|quilo)\b|\bmiligramas?\b|\bgotas?\b|\bcomprimidos?\b|\bcapsulas?\b|\bdoses?\b/,
      3,
    ],
    [
      /\ba cada \d+ ?(?:h|horas)\b|\bde \d+ em \d+ horas\b|\b(?:uma|duas|tres|quatro) vez(?:es)? (?:ao|por) dia\b|\b(?:sid|bid|tid|qid)\b/,
      3,
    ],
    [/\bpor (?:\d+|um|uma|dois|duas|tres|quatro|cinco|seis|sete|oito|dez|quinze|trinta) (?:dias|semanas|meses)\b/, 2],
    [/\b(?:via oral|vo|iv|sc|im|subcutane[oa]|intravenos[oa]|endovenos[oa]|intramuscular|topic[oa]|injetavel|na agua de bebida)\b/, 2],
    [
      /\b(?:aplicad[oa]|administrad[oa]|aplicar|administrar|iniciar|manter|oferecer|evitar|tratar|fazer|faz|passar|limpa|limpar|limpeza|banho|usar|dar|induzi\w*)\b/,
      1,
    ],
    [
      /\b(?:dieta|racao|alimentacao forcada|papinha|soro|fluidoterapia|internad[oa]|internacao|internar|cirurgi\w*|castracao|ovariohisterectomia|procedimento|extra\w+|drenagem|sonda|sedar|sedacao|anestesi\w*|colar|curativo|tala|imobiliza\w*|repouso|caminhadas?|nebuliza\w*|suplemento|analgesi\w*|antibiotico|anti-?inflamatorio|vermifugo|antipulgas|pomada|colirio|otologico|shampoo|vacina (?:polivalente|antirrabica|v\d+)|vacina aplicada|enriquecimento ambiental|controle de peso)\b/,
      2,
    ],
    [
      /\b\w+(?:azol|cilina|micina|floxacino|floxacina|prazol|profeno|xicam|pramida|semida|olona|sona|zepam|barbital|ciclina|dazol|mectina|orfina|adona|tadina|pirona|cetamol|tramadol|lina|izol)\b/,
      2,
    ],
    [
      /\b(?:vitamina|insulina|probiotico|maropitant|pimobendan|condroitina|glucosamina|praziquantel|pirantel|oclacitinib|lisina|carvao ativado|apomorfina|flunixina|metimazol|atropina|deslorelina)\b/,
      2,
    ],
  ],
  follow_up: [
    [/\b(?:retorno|retornar|retorna|reavalia\w*|revisao|reconsulta)\b/, 4],
    [
      /\b(?:volta|voltar|voltem|volte)\b (?:aqui|amanha|em|daqui|se|com (?:o|os) (?:resultados?|exames?)|para (?:a )?(?:reavaliacao|consulta|revisao))\b|\bnao precisa voltar\b/,
      3,
    ],
    [/\b(?:se (?:piorar|nao melhorar|houver|continuar|persistir|ainda)|em caso de piora|qualquer alteracao|imediatamente)\b/, 3],
    [/\b(?:agend\w+|marca\w*|proxim[oa] (?:vacina|consulta|dose)|daqui a|retirada d[oe]s? pontos|ligo|ligar|telefone|atualizando)\b/, 3],
  ],
  observations: [
    // Money: prices, estimates, payment.
    [
      /\b(?:reais|quanto (?:fica|custa|sai|e|vai ficar|da|deu)|custa\w*|custo|car[oa]|barat[oa]|orcamento|preco|valor|pag(?:ar|o|ou|amento|ando)|parcel\w*|pix|cartao|dinheiro|desconto|diaria|fiado|em conta)\b/,
      2,
    ],
    // Consent and decisions.
    [/\b(?:autoriz\w*|termo|assin\w*|consentimento|concord\w*|decid\w+|vou pensar|conversar com|ver com (?:o|a|meu|minha))\b/, 2],
    // The tutor's feelings and the vet's reassurance.
    [
      /\b(?:preocupad[oa]|preocup\w+|medo|ansios[oa]|nervos[oa]|chor\w+|coitad\w+|meu deus|nossa|graca(?:s)? a deus|ainda bem|culpa|pessim[oa]|triste|assustad[oa]|tranquil[oa]|revoltad[oa]|desesperad[oa]|aliviad[oa])\b/,
      2,
    ],
    // Logistics: transport, opening hours, who brings or fetches the animal.
    [
      /\b(?:moto|carro|onibus|uber|estrada|caminhonete|carona|buscar|recepcao|horario|fech(?:a|ou|ar)|abr(?:e|iu|ir)|sabado|domingo|trabalh(?:o|a|ar)|caixa de transporte|caixinha|gaiola)\b/,
      1,
    ],
    // Pleasantries.
    [
      /\b(?:pode entrar|pode sentar|bem vind[oa]|obrigad[oa]|deus (?:te|lhe) (?:abencoe|pague)|ate (?:logo|mais|a proxima|segunda)|por nada|imagina|com licenca|calma)\b/,
      2,
    ],
    // Temperament that is not a finding.
    [/\b(?:mans[oa]|mansinh[oa]|bonzinh[oa]|brav[oa]|arisc[oa]|morde|mordeu|arranh\w+)\b/, 1],
    [
      /^(?:bom dia|boa tarde|boa noite|ola|oi|oie|tudo (?:bem|bom)|obrigad[oa]|muito obrigad[oa]|valeu|de nada|ate logo|ate la|ate mais|tchau|combinado|certo|ta bom|tudo certo|pode (?:entrar|sentar))\b/,
      5,
    ],
    [/\b(?:autoriz\w+|orcamento|termo|assinad[oa]|ciente|orientad[oa]|explicad[oa]|material explicativo|prognostico|gravidade|grave)\b/, 4],
    [/\b(?:agitad[oa]|agressiv[oa]|focinheira|conten(?:cao|ido|ida)|medros[oa]|estressad[oa]|mordeu|isolad[oa])\b/, 3],
  ],
};

/** A return, recheck or scheduled next visit: follow-up wherever it is said, even under another heading. */
export const RETURN_VISIT =
  /\b(?:retorn(?:o|ar|a|em)(?! d[aoe]s? )|reavalia(?:r|cao)(?! (?:pos[- ]?operatoria )?d[aoe]s? )|revisao|reconsulta|recheck|agendad[oa]s?|marcad[oa]s? (?:para|pra)|proxim[oa] (?:consulta|dose|vacina|aplicacao|visita)|segunda dose|daqui a \w+ (?:dias|semanas|meses))\b/;
